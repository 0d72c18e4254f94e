package textdiff

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sergi/go-diff/diffmatchpatch"
)

// sides rebuilds the two texts a diff compares.
func sides(diffs []diffmatchpatch.Diff) (a, b string) {
	var sa, sb strings.Builder
	for _, d := range diffs {
		if d.Type != diffmatchpatch.DiffInsert {
			sa.WriteString(d.Text)
		}
		if d.Type != diffmatchpatch.DiffDelete {
			sb.WriteString(d.Text)
		}
	}
	return sa.String(), sb.String()
}

// changes lists the non-equal pieces of a diff as "-text" and "+text".
func changes(diffs []diffmatchpatch.Diff) []string {
	var out []string
	for _, d := range diffs {
		switch d.Type {
		case diffmatchpatch.DiffDelete:
			out = append(out, "-"+d.Text)
		case diffmatchpatch.DiffInsert:
			out = append(out, "+"+d.Text)
		}
	}
	return out
}

// longText is n numbered lines of prose, about 60 bytes each.
func longText(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "line %05d: the quick brown fox jumps over the lazy dog\n", i)
	}
	return b.String()
}

func TestTextDiffSmallIsExact(t *testing.T) {
	d := Diff("timeanddate is a site", "timeandate is a site")
	if got := changes(d); !reflect.DeepEqual(got, []string{"-d"}) {
		t.Fatalf("changes = %q, want one deleted d", got)
	}
}

// A text larger than a character diff takes is diffed by line, and the
// changed lines are refined to the characters that changed.
func TestTextDiffLargeRefinesChangedLines(t *testing.T) {
	a := longText(1000) // ~60 KiB
	b := strings.Replace(a, "line 00500: the quick brown fox", "line 00500: the quick red fox", 1)
	b = strings.Replace(b, "line 00900: the quick", "line 00900: a quick", 1)
	d := Diff(a, b)
	ga, gb := sides(d)
	if ga != a || gb != b {
		t.Fatal("the diff does not rebuild both texts")
	}
	got := strings.Join(changes(diffmatchpatch.New().DiffCleanupSemantic(d)), "|")
	for _, want := range []string{"-brown", "+red", "-the", "+a"} {
		if !strings.Contains(got, want) {
			t.Errorf("changes %q lack %q", got, want)
		}
	}
	if strings.Contains(got, "line 00") {
		t.Errorf("changes %q hold whole lines; want the changed words", got)
	}
}

// lcs returns the length of the longest common subsequence of a and b.
func lcs(a, b string) int {
	prev, cur := make([]int, len(b)+1), make([]int, len(b)+1)
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			switch {
			case a[i-1] == b[j-1]:
				cur[j] = prev[j-1] + 1
			case prev[j] >= cur[j-1]:
				cur[j] = prev[j]
			default:
				cur[j] = cur[j-1]
			}
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// A diff within the bounds is minimal however busy the machine is. Before,
// go-diff's 1 s deadline cut such a diff short on a loaded CI runner (and
// under -race), so findings and check goldens changed with the machine.
func TestTextDiffMinimalUnderLoad(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	text := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = "abcd efgh"[r.IntN(9)]
		}
		return string(b)
	}
	a, b := text(CharDiffMax/2), text(CharDiffMax/2)

	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 2 * runtime.GOMAXPROCS(0) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
					runtime.Gosched()
				}
			}
		}()
	}
	d := Diff(a, b)
	close(stop)
	wg.Wait()

	equal := 0
	for _, x := range d {
		if x.Type == diffmatchpatch.DiffEqual {
			equal += len(x.Text)
		}
	}
	if want := lcs(a, b); equal != want {
		t.Fatalf("the diff keeps %d bytes in common; the longest common subsequence has %d", equal, want)
	}
	if ga, gb := sides(d); ga != a || gb != b {
		t.Fatal("the diff does not rebuild both texts")
	}
}

// Unrelated large texts cost a bounded amount of work: one replacement.
func TestTextDiffUnrelatedLargeIsBounded(t *testing.T) {
	for name, tc := range map[string][2]string{
		"one line":   {strings.Repeat("a", 1<<20), strings.Repeat("b", 1<<20)},
		"many lines": {strings.Repeat("a\n", 1<<19), strings.Repeat("b\n", 1<<19)},
	} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			d := Diff(tc[0], tc[1])
			if got := changes(d); len(got) != 2 || got[0] != "-"+tc[0] || got[1] != "+"+tc[1] {
				t.Fatalf("want one replacement, got %d changes", len(got))
			}
			// Not a timing assertion on the result: a guard so that a
			// regression to quadratic work fails instead of hanging CI.
			if time.Since(start) > time.Minute {
				t.Fatal("took over a minute")
			}
		})
	}
}
