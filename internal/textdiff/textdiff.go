package textdiff

import (
	"strings"
	"unicode/utf8"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// Bounds on the work of one text diff. Myers' algorithm costs (N+M)·D for
// texts of N and M units with D edits between them, so two unrelated texts
// cost the square of their size: about a second for 32 KiB of text on a
// fast core. sergi/go-diff bounds that work with a wall-clock deadline,
// which makes the result depend on the machine's speed and load: a report
// or a check golden would change under -race or on a busy CI runner. seam
// bounds it by input size instead, so a diff is the same everywhere.
const (
	// CharDiffMax is the size of two texts (bytes together) up to which
	// they are compared character by character.
	CharDiffMax = 16 << 10
	// lineDiffMax is the number of lines (both texts together) up to
	// which larger texts are compared line by line.
	lineDiffMax = 16 << 10
	// refineBudget bounds the character diffs that refine a line diff's
	// changed runs: the sum of the squares of their sizes.
	refineBudget = 4 * CharDiffMax * CharDiffMax
)

// Diff compares two texts deterministically. Texts up to CharDiffMax
// are diffed by character. Larger ones are diffed by line, and each changed
// run of lines is then diffed by character while it and the total stay
// within the bounds; a run beyond them stays a whole-line replacement, and
// texts with more than lineDiffMax lines become one replacement.
func Diff(a, b string) []diffmatchpatch.Diff {
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0 // no deadline: the bounds above keep the work finite
	if len(a)+len(b) <= CharDiffMax {
		return dmp.DiffMain(a, b, false)
	}
	ra, rb, lines := dmp.DiffLinesToRunes(a, b)
	if len(ra)+len(rb) > lineDiffMax {
		return replaced(nil, a, b)
	}
	coarse := dmp.DiffCharsToLines(dmp.DiffMainRunes(ra, rb, false), lines)
	out := make([]diffmatchpatch.Diff, 0, len(coarse))
	budget := refineBudget
	for i := 0; i < len(coarse); {
		if coarse[i].Type == diffmatchpatch.DiffEqual {
			out = append(out, coarse[i])
			i++
			continue
		}
		var del, ins strings.Builder
		for ; i < len(coarse) && coarse[i].Type != diffmatchpatch.DiffEqual; i++ {
			if coarse[i].Type == diffmatchpatch.DiffDelete {
				del.WriteString(coarse[i].Text)
			} else {
				ins.WriteString(coarse[i].Text)
			}
		}
		n := del.Len() + ins.Len()
		if n <= CharDiffMax && n*n <= budget {
			budget -= n * n
			out = append(out, dmp.DiffMain(del.String(), ins.String(), false)...)
		} else {
			out = replaced(out, del.String(), ins.String())
		}
	}
	return out
}

// replaced appends the diff that deletes a and inserts b.
func replaced(out []diffmatchpatch.Diff, a, b string) []diffmatchpatch.Diff {
	if a != "" {
		out = append(out, diffmatchpatch.Diff{Type: diffmatchpatch.DiffDelete, Text: a})
	}
	if b != "" {
		out = append(out, diffmatchpatch.Diff{Type: diffmatchpatch.DiffInsert, Text: b})
	}
	return out
}

// ValidText returns s with each byte that is not part of UTF-8 written as
// a rune of its own, U+10FF00 plus the byte (Unicode's last private use
// plane), so that a diff of it has one rune for each rune or stray byte of
// s: the diff library reads text as runes and would make every stray byte
// U+FFFD, whose three bytes no longer add up to the text.
func ValidText(s string) string {
	var b strings.Builder
	b.Grow(len(s) + len(s)/2)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(0x10FF00 + rune(s[i]))
		} else {
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// BytesBack maps a diff of ValidText(a) and ValidText(b) back onto a and
// b, rune by rune: each rune of the diff stands for a rune of the text or
// one of its stray bytes. An equality whose bytes differ (a text that
// holds runes of U+10FF00 and up besides stray bytes) becomes a deletion
// and an insertion.
func BytesBack(diffs []diffmatchpatch.Diff, a, b string) []diffmatchpatch.Diff {
	if diffs == nil {
		return nil
	}
	out := make([]diffmatchpatch.Diff, 0, len(diffs))
	ia, ib := 0, 0
	take := func(s string, at *int, n int) string {
		from := *at
		for ; n > 0 && *at < len(s); n-- {
			_, size := utf8.DecodeRuneInString(s[*at:])
			*at += size
		}
		return s[from:*at]
	}
	for _, d := range diffs {
		n := utf8.RuneCountInString(d.Text)
		switch d.Type {
		case diffmatchpatch.DiffEqual:
			ta, tb := take(a, &ia, n), take(b, &ib, n)
			if ta == tb {
				out = append(out, diffmatchpatch.Diff{Type: diffmatchpatch.DiffEqual, Text: ta})
			} else {
				out = replaced(out, ta, tb)
			}
		case diffmatchpatch.DiffDelete:
			out = append(out, diffmatchpatch.Diff{Type: diffmatchpatch.DiffDelete, Text: take(a, &ia, n)})
		case diffmatchpatch.DiffInsert:
			out = append(out, diffmatchpatch.Diff{Type: diffmatchpatch.DiffInsert, Text: take(b, &ib, n)})
		}
	}
	return out
}
