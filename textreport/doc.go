// Package textreport draws what seam finds as text for a terminal: the
// figures of seam stats, the one-line-per-exchange summary of seam
// inspect over many captures, a seam grep match, the list of detectors and
// the shaping engine's switches, in tables that fit a width by leaving
// columns out (Table) and paragraphs wrapped to one (Wrap). Every cell that quotes a capture is drawn through package
// visible first.
//
// It does not compute what it draws (packages inspect and its siblings
// do), nor find the terminal's width or decide colour (cmd/seam does).
package textreport
