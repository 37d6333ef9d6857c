// Package cheader reads function prototypes from C and C++ headers as
// cbindgen writes them, and checks a binding's declarations against a
// library's header. C symbols carry no signature, so a binding that
// declares the wrong number of parameters links fine and then passes
// garbage: Dynamo's Go code called a 3-parameter dynamo_llm_init with 4
// arguments for several releases. This check catches that before the link.
package cheader

import (
	"fmt"
	"regexp"
	"strings"
)

// Prototype is one function declaration.
type Prototype struct {
	Name   string
	Return string
	// Params are the parameters as written, whitespace normalised
	// ("const char *namespace_c_str"); empty for "()" and "(void)".
	Params []string
}

// Parse returns the function prototypes of a header, by name (see
// ParseHeader).
func Parse(src []byte) (map[string]Prototype, error) {
	h, err := ParseHeader(src)
	if err != nil {
		return nil, err
	}
	return h.Functions, nil
}

// ParseHeader reads a header's function prototypes, struct definitions and
// type aliases. It removes comments and preprocessor lines, looks through
// extern "C" and namespace blocks, skips inline function bodies, and
// accepts declarations spread over several lines. Function-pointer
// declarations are not supported and are reported as errors rather than
// skipped, so no function can go unchecked unnoticed.
func ParseHeader(src []byte) (*Header, error) {
	text := stripPreprocessor(stripComments(string(src)))
	stmts, err := statements(text)
	if err != nil {
		return nil, err
	}
	h := &Header{Functions: map[string]Prototype{}, Structs: map[string]Struct{}, aliases: map[string]string{}}
	for _, st := range stmts {
		if err := h.typeDeclaration(st); err != nil {
			return nil, err
		}
		p, ok, err := prototype(st)
		if err != nil {
			return nil, err
		}
		if !ok {
			continue
		}
		if prev, dup := h.Functions[p.Name]; dup && len(prev.Params) != len(p.Params) {
			return nil, fmt.Errorf("%s is declared twice, with %d and %d parameters", p.Name, len(prev.Params), len(p.Params))
		}
		h.Functions[p.Name] = p
	}
	return h, nil
}

// stripComments replaces comments by a space, keeping string and character
// literals (such as the "C" of extern "C") intact.
func stripComments(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(s) && s[j] != c && s[j] != '\n' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			end := min(j+1, len(s))
			b.WriteString(s[i:end])
			i = end - 1
		case c == '/' && i+1 < len(s) && s[i+1] == '/':
			for i < len(s) && s[i] != '\n' {
				i++
			}
			b.WriteByte('\n')
		case c == '/' && i+1 < len(s) && s[i+1] == '*':
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				i = len(s)
			} else {
				// Keep the newlines so preprocessor lines stay lines.
				b.WriteString(strings.Repeat("\n", strings.Count(s[i:i+2+end+2], "\n")))
				b.WriteByte(' ')
				i += 2 + end + 1
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// stripPreprocessor drops #-directives, including continued lines.
func stripPreprocessor(s string) string {
	lines := strings.Split(s, "\n")
	var out []string
	continued := false
	for _, line := range lines {
		directive := continued || strings.HasPrefix(strings.TrimSpace(line), "#")
		continued = directive && strings.HasSuffix(strings.TrimRight(line, " \t\r"), "\\")
		if !directive {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}

var (
	space = regexp.MustCompile(`\s+`)
	// A block whose braces add no scope for our purpose: its contents are
	// ordinary top-level declarations.
	transparentOpener = regexp.MustCompile(`^(extern\s*"C(\+\+)?"|namespace(\s+[A-Za-z_]\w*)?)\s*$`)
	externC           = regexp.MustCompile(`^extern\s*"C(\+\+)?"\s*`)
	identBeforeParen  = regexp.MustCompile(`([A-Za-z_]\w*)\s*$`)
)

type statement struct {
	text    string
	hasBody bool   // a { } block was part of it: a type or function definition
	body    string // the text inside its first { } block
}

// statements splits top-level text at semicolons, tracking braces.
func statements(s string) ([]statement, error) {
	var (
		out     []statement
		cur     strings.Builder
		hasBody bool
		body    strings.Builder
		// bodyDone: a later block of the same statement is not recorded.
		bodyDone bool
		stack    []bool // true = transparent block
		depth    int    // depth inside opaque blocks
	)
	flush := func() {
		if t := strings.TrimSpace(space.ReplaceAllString(cur.String(), " ")); t != "" {
			out = append(out, statement{text: t, hasBody: hasBody, body: body.String()})
		}
		cur.Reset()
		body.Reset()
		hasBody = false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if depth > 0 {
			switch c {
			case '{':
				depth++
			case '}':
				depth--
				if depth == 0 {
					stack = stack[:len(stack)-1]
					// A function definition ends at its closing brace.
					if strings.HasSuffix(strings.TrimSpace(cur.String()), ")") || looksLikeFuncDef(cur.String()) {
						cur.Reset()
						body.Reset()
						hasBody = false
					}
					continue
				}
			}
			if !bodyDone {
				body.WriteByte(c)
			}
			continue
		}
		switch c {
		case '{':
			if transparentOpener.MatchString(strings.TrimSpace(cur.String())) {
				stack = append(stack, true)
				cur.Reset()
				continue
			}
			stack = append(stack, false)
			depth = 1
			bodyDone = hasBody // only the first block is the body
			hasBody = true
		case '}':
			if len(stack) == 0 || !stack[len(stack)-1] {
				return nil, fmt.Errorf("unbalanced '}' near %q", tail(cur.String()))
			}
			stack = stack[:len(stack)-1]
			flush()
		case ';':
			flush()
		default:
			cur.WriteByte(c)
		}
	}
	if depth > 0 || len(stack) > 0 {
		return nil, fmt.Errorf("unbalanced '{': %d block(s) not closed", len(stack))
	}
	if t := strings.TrimSpace(cur.String()); t != "" {
		return nil, fmt.Errorf("declaration not terminated by ';': %q", tail(t))
	}
	return out, nil
}

// looksLikeFuncDef reports a definition with trailing qualifiers after the
// parameter list (e.g. "int f(void) noexcept").
func looksLikeFuncDef(s string) bool {
	s = strings.TrimSpace(s)
	return strings.Contains(s, ")") && !strings.HasPrefix(s, "typedef") && !strings.ContainsAny(s, "=")
}

func tail(s string) string {
	s = strings.TrimSpace(space.ReplaceAllString(s, " "))
	if len(s) > 60 {
		return "..." + s[len(s)-60:]
	}
	return s
}

// prototype reads one statement; ok is false for anything that is not a
// function declaration (typedefs, variables, type definitions).
func prototype(st statement) (Prototype, bool, error) {
	s := externC.ReplaceAllString(st.text, "")
	s = strings.TrimSpace(strings.TrimPrefix(s, "extern "))
	open := strings.IndexByte(s, '(')
	if st.hasBody || open < 0 || strings.HasPrefix(s, "typedef ") || strings.HasPrefix(s, "static_assert") {
		return Prototype{}, false, nil
	}
	if strings.ContainsRune(s[:open], '=') {
		return Prototype{}, false, nil // a variable initialised by a call
	}
	m := identBeforeParen.FindStringSubmatchIndex(s[:open])
	if m == nil {
		return Prototype{}, false, fmt.Errorf("unsupported declaration (function pointer?): %q", st.text)
	}
	name := s[m[2]:m[3]]
	ret := strings.TrimSpace(s[:m[2]])
	if ret == "" {
		return Prototype{}, false, fmt.Errorf("declaration of %s has no return type: %q", name, st.text)
	}
	closeAt, err := matchingParen(s, open)
	if err != nil {
		return Prototype{}, false, fmt.Errorf("%s: %w", name, err)
	}
	params := splitParams(s[open+1 : closeAt])
	for _, p := range params {
		if strings.Contains(p, "(*") || strings.Contains(p, "( *") {
			return Prototype{}, false, fmt.Errorf("%s: function-pointer parameter %q is not supported", name, p)
		}
	}
	return Prototype{Name: name, Return: ret, Params: params}, true, nil
}

func matchingParen(s string, open int) (int, error) {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i, nil
			}
		}
	}
	return 0, fmt.Errorf("unbalanced '(' in %q", s)
}

// splitParams splits a parameter list at top-level commas.
func splitParams(list string) []string {
	list = strings.TrimSpace(list)
	if list == "" || list == "void" {
		return nil
	}
	var (
		params []string
		depth  int
		start  int
	)
	for i := 0; i < len(list); i++ {
		switch list[i] {
		case '(', '[', '<':
			depth++
		case ')', ']', '>':
			depth--
		case ',':
			if depth == 0 {
				params = append(params, normalise(list[start:i]))
				start = i + 1
			}
		}
	}
	return append(params, normalise(list[start:]))
}

func normalise(s string) string {
	return strings.TrimSpace(space.ReplaceAllString(s, " "))
}
