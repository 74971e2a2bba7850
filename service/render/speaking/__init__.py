"""A Speaker's helpers, one subject each: targets (how a format writes text, links, code),
params (what a catalog parameter holds), voice (filling a sentence, PRs, people, points),
written (what a language model wrote), risks, scores (factor wording), trends, answers (command
answers and their failures). `service.render.speaker.Speaker` joins them."""
