package wsframe

import (
	"fmt"
	"strconv"
)

// closeNames are the close codes RFC 6455 §7.4.1 defines and those IANA
// registered since, by name.
var closeNames = map[int]string{
	1000: "normal closure", 1001: "going away", 1002: "protocol error", 1003: "unsupported data",
	1005: "no status", 1006: "abnormal closure", 1007: "invalid payload data", 1008: "policy violation",
	1009: "message too big", 1010: "mandatory extension", 1011: "internal error", 1012: "service restart",
	1013: "try again later", 1014: "bad gateway", 1015: "TLS handshake",
}

// CloseName is a WebSocket close code with its name: "1011 (internal
// error)".
func CloseName(code int) string {
	if n, ok := closeNames[code]; ok {
		return fmt.Sprintf("%d (%s)", code, n)
	}
	if code >= 4000 && code <= 4999 {
		return fmt.Sprintf("%d (the application's own)", code)
	}
	return strconv.Itoa(code)
}
