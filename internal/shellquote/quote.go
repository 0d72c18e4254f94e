package shellquote

import "strings"

// bare lists the bytes a word may hold and stay unquoted: letters, digits
// and punctuation no POSIX shell gives a meaning to within a word.
const bare = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.,:/=@+%"

// Quote returns s in single quotes: inside them nothing is special, and a
// single quote in s is closed, escaped and reopened ('\”).
func Quote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Word returns s unchanged when it is not empty and made only of letters,
// digits and _-.,:/=@+%, else Quote(s).
func Word(s string) string {
	if s != "" && strings.Trim(s, bare) == "" {
		return s
	}
	return Quote(s)
}
