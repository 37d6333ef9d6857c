// Command epp is a stand-in for an EPP with known-vulnerable
// dependencies, at each level the scanner tells apart: it calls
// golang.org/x/text/language.ParseAcceptLanguage (GO-2022-1059), imports
// github.com/gorilla/websocket without calling its vulnerable methods
// (GO-2020-0019), and only requires the parts of golang.org/x/text that
// GO-2026-5970 and GO-2026-6629 are about.
package main

import (
	"fmt"
	"os"

	"github.com/gorilla/websocket"
	"golang.org/x/text/language"
)

func main() {
	tags, _, err := language.ParseAcceptLanguage(os.Getenv("ACCEPT_LANGUAGE"))
	fmt.Println(tags, err, websocket.IsCloseError(err, websocket.CloseNormalClosure))
}
