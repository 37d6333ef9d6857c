package vulns

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/epp-build/epp-build/internal/inputfile"
)

// VEXError refuses a --vex document that is not OpenVEX, or whose
// not_affected statement gives no reason.
type VEXError struct {
	Path   string
	Reason string
}

func (e *VEXError) Error() string { return "--vex " + e.Path + ": " + e.Reason }

// vexContext starts every OpenVEX document's @context
// (https://openvex.dev/ns/v0.2.0 and the versions before it).
const vexContext = "https://openvex.dev/ns"

type vexDoc struct {
	Context    string         `json:"@context"`
	ID         string         `json:"@id"`
	Statements []vexStatement `json:"statements"`
	// raw are the statements as written, to carry into an OpenVEX output.
	raw []json.RawMessage
}

type vexStatement struct {
	Vulnerability struct {
		ID      string   `json:"@id"`
		Name    string   `json:"name"`
		Aliases []string `json:"aliases"`
	} `json:"vulnerability"`
	Products []struct {
		ID            string `json:"@id"`
		Subcomponents []struct {
			ID string `json:"@id"`
		} `json:"subcomponents"`
	} `json:"products"`
	Status          string `json:"status"`
	Justification   string `json:"justification"`
	ImpactStatement string `json:"impact_statement"`
}

// CheckVEX reads the OpenVEX document at path as a scan would, to refuse
// a bad one before any work (a *VEXError, or the file's own error).
func CheckVEX(path string) error {
	_, err := readVEX(path)
	return err
}

func readVEX(path string) (*vexDoc, error) {
	data, err := inputfile.ReadFile(path, "", inputfile.Limit{Bytes: 64 << 20, What: "an OpenVEX document"})
	if err != nil {
		return nil, err
	}
	var doc vexDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, &VEXError{path, "not JSON: " + err.Error()}
	}
	var raw struct {
		Statements []json.RawMessage `json:"statements"`
	}
	_ = json.Unmarshal(data, &raw) // it parsed above
	doc.raw = raw.Statements
	if !strings.HasPrefix(doc.Context, vexContext) {
		return nil, &VEXError{path, fmt.Sprintf("@context is %q, not OpenVEX's (%s/...)", doc.Context, vexContext)}
	}
	for i, s := range doc.Statements {
		if s.Vulnerability.Name == "" && s.Vulnerability.ID == "" {
			return nil, &VEXError{path, fmt.Sprintf("statement %d names no vulnerability", i+1)}
		}
		// OpenVEX requires one of them: a suppression must say why.
		if s.Status == "not_affected" && s.Justification == "" && s.ImpactStatement == "" {
			return nil, &VEXError{path, fmt.Sprintf("statement %d (%s) is not_affected with neither a justification nor an impact_statement", i+1, s.name())}
		}
	}
	return &doc, nil
}

func (s *vexStatement) name() string {
	if s.Vulnerability.Name != "" {
		return s.Vulnerability.Name
	}
	return s.Vulnerability.ID
}

// names are the ids the statement's vulnerability goes by; an @id such as
// https://pkg.go.dev/vuln/GO-2022-1059 counts by its last element.
func (s *vexStatement) names() []string {
	ns := append([]string{s.Vulnerability.Name}, s.Vulnerability.Aliases...)
	if id := s.Vulnerability.ID; id != "" {
		ns = append(ns, id, id[strings.LastIndexByte(id, '/')+1:])
	}
	return ns
}

// matches says whether s is about f: one of the vulnerability's names is
// f's id or alias and, when s lists Go subcomponents (purls
// pkg:golang/MODULE@VERSION), one of them is f's module. Products are not
// compared: the document names the EPP as its author does.
func (s *vexStatement) matches(f *Finding) bool {
	ids := append([]string{f.ID}, f.Aliases...)
	named := false
	for _, n := range s.names() {
		if n != "" && slices.Contains(ids, n) {
			named = true
		}
	}
	if !named {
		return false
	}
	var modules []string
	for _, p := range s.Products {
		for _, sc := range p.Subcomponents {
			if rest, ok := strings.CutPrefix(sc.ID, "pkg:golang/"); ok {
				mod, _, _ := strings.Cut(rest, "@")
				modules = append(modules, mod)
			}
		}
	}
	return len(modules) == 0 || slices.Contains(modules, f.Module)
}

// suppress marks each finding the document's last statement about it
// says is not_affected; a later affected or fixed statement undoes an
// earlier not_affected one, as in OpenVEX.
func (d *vexDoc) suppress(fs []Finding) {
	if d == nil {
		return
	}
	for i := range fs {
		f := &fs[i]
		f.Suppressed = nil
		for _, s := range d.Statements {
			if !s.matches(f) {
				continue
			}
			f.Suppressed = nil
			if s.Status == "not_affected" {
				f.Suppressed = &Suppression{Justification: s.Justification, ImpactStatement: s.ImpactStatement}
			}
		}
	}
}

// statementsFor are the statements, as written, that suppressed a
// finding of fs.
func (d *vexDoc) statementsFor(fs []Finding) []json.RawMessage {
	if d == nil {
		return nil
	}
	var out []json.RawMessage
	for i, s := range d.Statements {
		for j := range fs {
			if fs[j].Suppressed != nil && s.Status == "not_affected" && s.matches(&fs[j]) && i < len(d.raw) {
				out = append(out, d.raw[i])
				break
			}
		}
	}
	return out
}
