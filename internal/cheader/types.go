package cheader

import (
	"fmt"
	"regexp"
	"strings"
)

// Header is what a header declares: functions, struct layouts and the type
// aliases (typedef, using, enums with a fixed underlying type) needed to
// compare types written differently by cbindgen's C and C++ styles.
type Header struct {
	Functions map[string]Prototype
	Structs   map[string]Struct
	// aliases maps a type name to the type it stands for, as written.
	aliases map[string]string
}

// Struct is a struct definition: its fields in declaration order.
type Struct struct {
	Name   string
	Fields []Field
}

// Field is one struct member.
type Field struct {
	Name string
	Type string // as written, whitespace normalised
}

var (
	tokenRE         = regexp.MustCompile(`[A-Za-z_]\w*|\*|&|\[[^\]]*\]|::|[^\s]`)
	enumHead        = regexp.MustCompile(`^enum\s+(?:class\s+|struct\s+)?([A-Za-z_]\w*)\s*(?::\s*(.+))?$`)
	structDef       = regexp.MustCompile(`^(?:typedef\s+)?struct\s+([A-Za-z_]\w*)?\s*([A-Za-z_]\w*)?$`)
	usingDecl       = regexp.MustCompile(`^using\s+([A-Za-z_]\w*)\s*=\s*(.+)$`)
	fnPointerMember = regexp.MustCompile(`\(\s*\*\s*([A-Za-z_]\w*)\s*\)\s*\(`)
	typedefOf       = regexp.MustCompile(`^typedef\s+(.+?)\s*\b([A-Za-z_]\w*)$`)
)

// typeDeclaration records st when it declares a type: a struct with a body,
// an enum with an underlying type, a typedef or a C++ using alias.
func (h *Header) typeDeclaration(st statement) error {
	s := strings.TrimSpace(externC.ReplaceAllString(st.text, ""))
	if st.hasBody {
		if m := enumHead.FindStringSubmatch(s); m != nil {
			// A repr(u32) enum is its underlying integer at the ABI; without
			// one it is an int.
			h.aliases[m[1]] = "int"
			if m[2] != "" {
				h.aliases[m[1]] = strings.TrimSpace(m[2])
			}
			return nil
		}
		if m := structDef.FindStringSubmatch(s); m != nil && strings.Contains(st.text, "struct") {
			name := m[1]
			if name == "" {
				name = m[2]
			}
			if name == "" || strings.Contains(st.body, "{") {
				return nil // anonymous or nested: not a layout this check needs
			}
			fields, err := structFields(name, st.body)
			if err != nil {
				return err
			}
			h.Structs[name] = Struct{Name: name, Fields: fields}
			if m[2] != "" && m[2] != name {
				h.aliases[m[2]] = name
			}
		}
		return nil
	}
	if strings.Contains(s, "(") {
		return nil // function or function-pointer typedef: prototype() decides
	}
	if m := usingDecl.FindStringSubmatch(s); m != nil {
		h.aliases[m[1]] = m[2]
		return nil
	}
	if m := typedefOf.FindStringSubmatch(s); m != nil {
		if canonicalBase(m[1]) != m[2] { // typedef struct X X names itself
			h.aliases[m[2]] = m[1]
		}
	}
	return nil
}

func structFields(name, body string) ([]Field, error) {
	var fields []Field
	for _, decl := range strings.Split(body, ";") {
		decl = normalise(decl)
		if decl == "" {
			continue
		}
		if m := fnPointerMember.FindStringSubmatch(decl); m != nil {
			// Compared as written: the check has no function types.
			fields = append(fields, Field{Name: m[1], Type: decl})
			continue
		}
		typ, field := splitDeclarator(decl)
		if field == "" {
			return nil, fmt.Errorf("struct %s: member %q has no name", name, decl)
		}
		fields = append(fields, Field{Name: field, Type: typ})
	}
	return fields, nil
}

// builtinWords are type keywords that are never a parameter's name.
var builtinWords = map[string]bool{
	"void": true, "char": true, "short": true, "int": true, "long": true, "float": true, "double": true,
	"signed": true, "unsigned": true, "bool": true, "_Bool": true, "const": true, "volatile": true,
	"struct": true, "enum": true, "union": true, "restrict": true,
}

// splitDeclarator splits "const char *name" into ("const char *", "name")
// and "uint8_t bytes[16]" into ("uint8_t[16]", "bytes"). A declaration
// without a name ("uint32_t", "const char *") returns an empty name.
func splitDeclarator(decl string) (typ, name string) {
	toks := tokenRE.FindAllString(decl, -1)
	var array string
	for len(toks) > 0 && strings.HasPrefix(toks[len(toks)-1], "[") {
		array = toks[len(toks)-1] + array
		toks = toks[:len(toks)-1]
	}
	typeWords := 0
	for _, t := range toks[:max(len(toks)-1, 0)] {
		if t != "*" && t != "&" && t != "const" && t != "volatile" && t != "struct" && t != "enum" {
			typeWords++
		}
	}
	if n := len(toks); n >= 2 {
		last := toks[n-1]
		if isIdent(last) && !builtinWords[last] && (typeWords > 0 || toks[n-2] == "*" || toks[n-2] == "&") {
			return strings.Join(toks[:n-1], " ") + array, last
		}
	}
	return strings.Join(toks, " ") + array, ""
}

func isIdent(s string) bool {
	return s != "" && (s[0] == '_' || s[0] >= 'A' && s[0] <= 'Z' || s[0] >= 'a' && s[0] <= 'z')
}

// abiSame maps spellings that are the same type on every target this
// project builds for (LP64 Linux: amd64 and arm64) to one name. cbindgen
// writes Rust's usize as uintptr_t, or as size_t with usize_is_size_t.
var abiSame = map[string]string{"size_t": "uintptr_t", "_Bool": "bool", "ptrdiff_t": "intptr_t"}

// canonicalBase drops qualifiers and struct/enum keywords, leaving the
// type's words and stars ("const struct Result *" -> "Result *").
//
// Qualifiers are not part of the ABI: C11 6.2.5 gives qualified and
// unqualified versions of a type the same representation and alignment,
// and the calling convention depends on the unqualified type only. A
// binding that writes "char *" where Rust has "*const c_char" calls the
// same code with the same registers; a different pointee type, pointer
// depth, width or signedness does not, and is reported.
func canonicalBase(t string) string {
	var out []string
	for _, tok := range tokenRE.FindAllString(t, -1) {
		switch tok {
		case "const", "volatile", "restrict", "struct", "enum", "union", "class":
			continue
		}
		out = append(out, tok)
	}
	return strings.Join(out, " ")
}

// Canonical is t with aliases resolved through h and ABI-identical
// spellings unified: the form two headers' types are compared in.
func (h *Header) Canonical(t string) string {
	base := canonicalBase(t)
	for range 16 { // bounded: an alias cycle must not hang the check
		words, stars := splitStars(base)
		target, ok := h.aliases[words]
		if !ok {
			if same, ok := abiSame[words]; ok {
				words = same
			}
			return words + stars
		}
		tw, ts := splitStars(canonicalBase(target))
		base = tw + ts + stars
	}
	return base
}

// splitStars separates the named part of a type from its trailing pointer
// and array suffix ("uint32_t * *" -> "uint32_t", "**").
func splitStars(t string) (string, string) {
	toks := strings.Fields(t)
	i := len(toks)
	for i > 0 && (toks[i-1] == "*" || toks[i-1] == "&" || strings.HasPrefix(toks[i-1], "[")) {
		i--
	}
	return strings.Join(toks[:i], " "), strings.Join(toks[i:], "")
}

// Only returns a header that declares just the given functions and structs,
// with h's aliases, so a check can look at part of a header with the
// types the whole of it defines.
func (h *Header) Only(functions map[string]Prototype, structs map[string]Struct) *Header {
	out := &Header{Functions: map[string]Prototype{}, Structs: map[string]Struct{}, aliases: h.aliases}
	for k, v := range functions {
		out.Functions[k] = v
	}
	for k, v := range structs {
		out.Structs[k] = v
	}
	return out
}
