package shape

import (
	"github.com/seam-dev/seam/internal/jsstring"
	"github.com/tidwall/gjson"
)

// renderXML appends the Obsidian Copilot XML for one structured tool call:
//
//	<use_tool>
//	<name>NAME</name>
//	<key>value</key>
//	</use_tool>
//
// One child tag per top-level argument, in the order the arguments came; a
// call with no arguments gets no children. String values are written as they
// are (Obsidian's parser does no entity decoding, so escaping would change
// them); numbers, booleans, objects and arrays as their JSON text; null as
// empty. Arguments that are not a JSON object go in one <args> tag.
//
// With voidArgs (the historical behaviour, bug class P) an empty object
// renders as <args>{}</args> and empty arguments render nothing at all.
func renderXML(dst []byte, name, args string, voidArgs bool) []byte {
	a := jsstring.Trim(args)
	if a == "" && voidArgs {
		return dst
	}
	if name == "" {
		name = "tool"
	}
	dst = append(dst, "<use_tool>\n<name>"...)
	dst = append(dst, name...)
	dst = append(dst, "</name>\n"...)
	switch {
	case a == "":
	case a[0] == '{' && gjson.Valid(a):
		n := 0
		gjson.Parse(a).ForEach(func(k, v gjson.Result) bool {
			n++
			dst = append(dst, '<')
			dst = append(dst, k.Str...)
			dst = append(dst, '>')
			switch v.Type {
			case gjson.String:
				dst = append(dst, v.Str...)
			case gjson.Null:
			default:
				dst = append(dst, v.Raw...)
			}
			dst = append(dst, "</"...)
			dst = append(dst, k.Str...)
			dst = append(dst, ">\n"...)
			return true
		})
		if n == 0 && voidArgs {
			dst = append(dst, "<args>"...)
			dst = append(dst, a...)
			dst = append(dst, "</args>\n"...)
		}
	default:
		dst = append(dst, "<args>"...)
		dst = append(dst, a...)
		dst = append(dst, "</args>\n"...)
	}
	return append(dst, "</use_tool>"...)
}
