package inspect

import "strings"

// Regions of an assembled text relative to its Obsidian tool blocks: where
// a hunk of the upstream-vs-client diff sits says which transform can have
// made it (a preamble leaked before a block, a block rewritten, narrative
// after the last block suppressed).
const (
	// RegionPreamble is the text before the first tool block.
	RegionPreamble = "preamble"
	// RegionToolBlock is inside a <use_tool>…</use_tool> block (or an
	// unclosed one, to the end of the text).
	RegionToolBlock = "tool-block"
	// RegionBetween is between two tool blocks.
	RegionBetween = "between-blocks"
	// RegionTail is the text after the last tool block: what the
	// suppress-tail transform holds back.
	RegionTail = "tail"
)

// Where says in words which region of the text the hunk sits in ("in the
// tail after the last tool block"), and whether it only carries converted
// tool calls; "" when the texts have no tool blocks.
func (h *Hunk) Where() string {
	if h.Region == "" {
		return ""
	}
	s := "in the " + regionWords(h.Region)
	if h.Converted {
		s += ", tool calls carried as XML"
	}
	return s
}

// toolBlocks returns the byte ranges of the tool blocks of a text: each
// from a "<use_tool" to the end of the first "</use_tool" after it (its '>'
// included when present), an unclosed one to the end of the text. Malformed
// tags count, as the engine's block scan counts them.
func toolBlocks(text string) [][2]int {
	var out [][2]int
	for pos := 0; pos < len(text); {
		i := strings.Index(text[pos:], toolOpenTag)
		if i < 0 {
			break
		}
		start := pos + i
		rest := start + len(toolOpenTag)
		j := strings.Index(text[rest:], toolCloseTag)
		if j < 0 {
			out = append(out, [2]int{start, len(text)})
			break
		}
		end := rest + j + len(toolCloseTag)
		if end < len(text) && text[end] == '>' {
			end++
		}
		out = append(out, [2]int{start, end})
		pos = end
	}
	return out
}

const (
	toolOpenTag  = "<use_tool"
	toolCloseTag = "</use_tool"
)

// regionAt names the region of byte off given a text's tool blocks, or ""
// when the text has none.
func regionAt(blocks [][2]int, off int) string {
	if len(blocks) == 0 {
		return ""
	}
	if off < blocks[0][0] {
		return RegionPreamble
	}
	for _, b := range blocks {
		if off >= b[0] && off < b[1] {
			return RegionToolBlock
		}
	}
	if off >= blocks[len(blocks)-1][1] {
		return RegionTail
	}
	return RegionBetween
}

// covered reports whether [from, to) lies within the union of ranges
// (sorted and disjoint); an empty range is covered.
func covered(ranges [][2]int, from, to int) bool {
	for from < to {
		ok := false
		for _, r := range ranges {
			if from >= r[0] && from < r[1] {
				from, ok = r[1], true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return true
}

// classifyHunks sets each hunk's region (on the upstream text when it has
// tool blocks, else on the client text) and marks the hunks that only hold
// tool calls carried between structured form and XML blocks (convA and
// convB: the ranges of such blocks in the upstream and client text).
func classifyHunks(d *Diff, a, b string, convA, convB [][2]int) {
	ba, bb := toolBlocks(a), toolBlocks(b)
	for i := range d.Hunks {
		h := &d.Hunks[i]
		if len(ba) > 0 {
			h.Region = regionAt(ba, h.AOff)
		} else {
			h.Region = regionAt(bb, h.BOff)
		}
		h.Converted = (h.aEnd > h.AOff || h.bEnd > h.BOff) && covered(convA, h.AOff, h.aEnd) && covered(convB, h.BOff, h.bEnd)
		if h.Converted {
			h.Region = RegionToolBlock
		}
	}
}
