"""The platform-neutral command engine: parse chat text into a Command, answer it from the store."""
