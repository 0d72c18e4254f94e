package inspect

import (
	"strings"

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
	// charDiffMax is the size of two texts (bytes together) up to which
	// they are compared character by character.
	charDiffMax = 16 << 10
	// lineDiffMax is the number of lines (both texts together) up to
	// which larger texts are compared line by line.
	lineDiffMax = 16 << 10
	// refineBudget bounds the character diffs that refine a line diff's
	// changed runs: the sum of the squares of their sizes.
	refineBudget = 4 * charDiffMax * charDiffMax
)

// textDiff compares two texts deterministically. Texts up to charDiffMax
// are diffed by character. Larger ones are diffed by line, and each changed
// run of lines is then diffed by character while it and the total stay
// within the bounds; a run beyond them stays a whole-line replacement, and
// texts with more than lineDiffMax lines become one replacement.
func textDiff(a, b string) []diffmatchpatch.Diff {
	dmp := diffmatchpatch.New()
	dmp.DiffTimeout = 0 // no deadline: the bounds above keep the work finite
	if len(a)+len(b) <= charDiffMax {
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
		if n <= charDiffMax && n*n <= budget {
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
