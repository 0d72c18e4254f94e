// Package captures opens what a user points seam at: a capture file
// (plain or zstd-compressed, named *.ndjson or *.ndjson.zst or not), a
// directory of them (walked, regular files only), "-" for stdin, an
// object or a prefix of objects in an S3-compatible store (s3://, read
// through package bucket, streamed), or
// another tool's recording, told from a capture by sniffing its first line
// and converted (a HAR, a cassette, a raw body: see convert.Import). It
// reads a few MB ahead of the decoder on a goroutine of its own, hands a
// capture over whole or exchange by exchange, and counts the bytes it
// reads for a progress line the caller draws (Progress). Create opens
// where a new capture goes (a file, a directory, stdout), PartPath names
// the files of a recording split by seam record --rotate, and CreateFile
// makes a capture file, locked while it is written. Ship sets a long
// recording up to write those files and, with a store, to upload each one
// once closed (package bucket's uploader), resuming what a previous run
// left: where its captures go, locally and in the bucket.
//
// It also gives the terminal UI what it needs to open a file it reads in
// place: whether a file is compressed, a lazy decompressor, a check that a
// file starts with a capture header, the capture files of one directory,
// and a reader that follows a file as it grows.
//
// It does not decode captures (package tape does), inspect them (package
// inspect), print anything (a caller says what was skipped, through
// Options.Note, and prints warnings) or decide what a command does with
// them.
package captures
