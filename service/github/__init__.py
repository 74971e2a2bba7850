"""GitHub adapter: REST and GraphQL over requests, turned into core models."""
