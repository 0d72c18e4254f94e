// Package request reads what an LLM API request body says, the same way
// for OpenAI Chat Completions, OpenAI Responses and Anthropic Messages:
// the model, whether it streams, the conversation it carries (system
// prompt, messages, tool calls and tool results), a Responses request's
// input items and previous_response_id, and the tools it offers, in its
// tools field or as the XML catalogue of Obsidian Copilot's prompt.
//
// Parse is read once per exchange by inspect's detectors and request
// diff, by the sessions that link exchanges (package session) and by
// search. A Reader reads a run of requests as Parse does, recalling the
// messages and tools lists one repeats from another (an agent's requests
// each carry the conversation so far) instead of reading them again;
// inspect reads a capture's requests with one. It judges nothing: a
// request whose history is wrong is read as it is, and the findings are
// inspect's.
package request
