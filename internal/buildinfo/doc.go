// Package buildinfo says which commit a binary was built from, as the go
// command recorded it in the binary (runtime/debug.ReadBuildInfo), or why
// it recorded none.
//
// It does not hold seam's version or the capture format's; the command
// prints those beside what it says.
package buildinfo
