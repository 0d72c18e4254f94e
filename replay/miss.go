package replay

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// closeness ranks a recorded request against a new one: same model first,
// then the longer common history prefix, then the nearer history length.
type closeness struct {
	sameModel bool
	prefix    int
	lenGap    int
}

func (c closeness) better(d closeness) bool {
	if c.sameModel != d.sameModel {
		return c.sameModel
	}
	if c.prefix != d.prefix {
		return c.prefix > d.prefix
	}
	return c.lenGap < d.lenGap
}

func compare(got, rec *request) closeness {
	gm, _ := got.model()
	rm, _ := rec.model()
	c := closeness{sameModel: gm == rm}
	for c.prefix < len(got.history) && c.prefix < len(rec.history) && got.history[c.prefix] == rec.history[c.prefix] {
		c.prefix++
	}
	c.lenGap = len(got.history) - len(rec.history)
	if c.lenGap < 0 {
		c.lenGap = -c.lenGap
	}
	return c
}

// explain says, on one line, how got differs from the recorded rec, named
// label: "closest is exchange 4 (same model, first 6 of 7 messages equal);
// message 7 differs: role "tool" vs recorded "user"".
func explain(label string, got, rec *request) string {
	if !got.json || !rec.json {
		return "closest is " + label + "; the request body differs (not a JSON object)"
	}
	c := compare(got, rec)
	_, gok := got.model()
	_, rok := rec.model()
	var parts []string
	if gok || rok {
		if c.sameModel {
			parts = append(parts, "same model")
		} else {
			parts = append(parts, "other model")
		}
	}
	if len(got.history) > 0 || len(rec.history) > 0 {
		n := len(got.history)
		noun := got.noun(n)
		if got.histKey == "" {
			noun = rec.noun(n)
		}
		switch {
		case n == 0:
			parts = append(parts, fmt.Sprintf("no %s vs recorded %d", rec.noun(0), len(rec.history)))
		case c.prefix == n && n == len(rec.history) && n == 1:
			parts = append(parts, "the one "+noun+" equal")
		case c.prefix == n && n == len(rec.history):
			parts = append(parts, fmt.Sprintf("all %d %s equal", n, noun))
		default:
			parts = append(parts, fmt.Sprintf("first %d of %d %s equal", c.prefix, n, noun))
		}
	}
	head := "closest is " + label
	if len(parts) > 0 {
		head += " (" + strings.Join(parts, ", ") + ")"
	}
	return head + "; " + reason(got, rec, c)
}

// reason names the first difference that matters most: the model, then the
// history, then any other field.
func reason(got, rec *request, c closeness) string {
	if !c.sameModel {
		return "model " + showModel(got) + " vs recorded " + showModel(rec)
	}
	item := func(r *request, i int) string { return r.noun(1) + " " + strconv.Itoa(i+1) }
	switch {
	case c.prefix < len(got.history) && c.prefix < len(rec.history):
		return item(got, c.prefix) + " differs: " + firstDiff("", got.historyItem(c.prefix), rec.historyItem(c.prefix))
	case c.prefix < len(got.history):
		s := item(got, c.prefix) + " is not in the recording"
		if role, ok := roleOf(got.historyItem(c.prefix)); ok {
			s += " (role " + show(role) + ")"
		}
		return s
	case c.prefix < len(rec.history):
		more := len(rec.history) - c.prefix
		s := fmt.Sprintf("the recording has %d more %s", more, rec.noun(more))
		if c.prefix > 0 {
			s += " after " + item(got, c.prefix-1)
		}
		return s
	}
	for _, k := range unionKeys(got.doc, rec.doc) {
		g, gok := got.doc[k]
		r, rok := rec.doc[k]
		if gok && rok && reflect.DeepEqual(g, r) {
			continue
		}
		return diffMissing(k, g, gok, r, rok)
	}
	return "the bodies differ" // not reached: equal canonical bodies match
}

func showModel(r *request) string {
	if m, ok := r.model(); ok {
		return show(m)
	}
	return "(none)"
}

func roleOf(v any) (string, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return "", false
	}
	if role, ok := m["role"].(string); ok {
		return role, true
	}
	t, ok := m["type"].(string)
	return t, ok
}

// firstDiff describes the first difference between a (the request) and b
// (the recording), at path, e.g. `tool_calls[0].function.arguments "{}" vs
// recorded "{\"a\":1}"`. Object fields are visited role and type first.
func firstDiff(path string, a, b any) string {
	switch a := a.(type) {
	case map[string]any:
		b, ok := b.(map[string]any)
		if !ok {
			break
		}
		for _, k := range unionKeys(a, b) {
			av, aok := a[k]
			bv, bok := b[k]
			if aok && bok {
				if !reflect.DeepEqual(av, bv) {
					return firstDiff(join(path, k), av, bv)
				}
				continue
			}
			return diffMissing(join(path, k), av, aok, bv, bok)
		}
	case []any:
		b, ok := b.([]any)
		if !ok {
			break
		}
		for i := 0; i < len(a) && i < len(b); i++ {
			if !reflect.DeepEqual(a[i], b[i]) {
				return firstDiff(path+"["+strconv.Itoa(i)+"]", a[i], b[i])
			}
		}
		return fmt.Sprintf("%s has %d items vs recorded %d", name(path), len(a), len(b))
	case string:
		if bs, ok := b.(string); ok && strings.HasPrefix(a, idPrefix) && strings.HasPrefix(bs, idPrefix) {
			return fmt.Sprintf("%s is %s vs recorded %s (ids compare by order of first appearance)", name(path), show(a), show(bs))
		}
	}
	return name(path) + " " + show(a) + " vs recorded " + show(b)
}

func diffMissing(path string, a any, aok bool, b any, bok bool) string {
	if !bok {
		return path + " " + show(a) + " is not in the recording"
	}
	if !aok {
		return path + " is missing (recorded " + show(b) + ")"
	}
	return firstDiff(path, a, b)
}

func join(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}

func name(path string) string {
	if path == "" {
		return "content"
	}
	return path
}

// unionKeys lists the keys of a and b: role and type first, then the rest
// sorted.
func unionKeys(a, b map[string]any) []string {
	seen := map[string]bool{}
	var keys []string
	for _, m := range []map[string]any{a, b} {
		for k := range m {
			if !seen[k] {
				seen[k] = true
				keys = append(keys, k)
			}
		}
	}
	rank := func(k string) int {
		switch k {
		case "role":
			return 0
		case "type":
			return 1
		}
		return 2
	}
	slices.SortFunc(keys, func(x, y string) int {
		if rx, ry := rank(x), rank(y); rx != ry {
			return rx - ry
		}
		return strings.Compare(x, y)
	})
	return keys
}

// show renders a JSON value briefly for a one-line message: strings quoted
// and cut to 40 characters, objects and arrays by their size.
func show(v any) string {
	switch v := v.(type) {
	case string:
		if strings.HasPrefix(v, idPrefix) {
			return "id #" + strings.TrimPrefix(v, idPrefix)
		}
		if utf8.RuneCountInString(v) > 40 {
			r := []rune(v)
			return strconv.Quote(string(r[:40])) + "…"
		}
		return strconv.Quote(v)
	case map[string]any:
		return fmt.Sprintf("an object of %d fields", len(v))
	case []any:
		return fmt.Sprintf("%d items", len(v))
	case nil:
		return "null"
	default:
		return string(encodeCanonical(v))
	}
}
