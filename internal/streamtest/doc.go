// Package streamtest builds the provider streams seam's tests feed it:
// Chat Completions chunks and whole streams (Chunk, ChatText, ChatCalls),
// Anthropic Messages events (Anthropic and the Ant* events) and an
// agent's tool loop across exchanges in several protocols (Loop); a body
// cut into a side's chunks (Chunks) and the repository's recorded streams
// (ReadRealworld), which several packages' tests read. It is
// imported by tests only; the streams are built as the providers write
// them, not checked (that is what the tests do).
package streamtest
