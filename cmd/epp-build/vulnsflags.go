package main

import (
	"github.com/spf13/pflag"

	"github.com/epp-build/epp-build/internal/pipeline"
	"github.com/epp-build/epp-build/internal/vulns"
)

// thresholdFlag is --vulns fail-on=LEVEL, parsed when the flags are: a
// bad value is a usage error before any work.
type thresholdFlag struct{ th *vulns.Threshold }

func (f thresholdFlag) String() string {
	if f.th == nil || *f.th == "" {
		return ""
	}
	return "fail-on=" + string(*f.th)
}

func (f thresholdFlag) Set(s string) error {
	th, err := vulns.ParseThreshold(s)
	if err != nil {
		return err
	}
	*f.th = th
	return nil
}

func (thresholdFlag) Type() string { return "fail-on=LEVEL" }

// registerVulnsGate adds build's --vulns, --vulns-db and --vex.
func registerVulnsGate(fl *pflag.FlagSet, g *pipeline.VulnsGate) {
	fl.Var(thresholdFlag{&g.FailOn}, "vulns", "scan each platform's compiled EPP before anything is pushed and refuse the image (exit 10) at this level: fail-on=called, fail-on=imported or fail-on=none (scan and attach, never refuse)")
	fl.StringVar(&g.DB, "vulns-db", vulns.DefaultDB, "--vulns: vulnerability database, as vulns --db takes it (an https URL, file:///DIR or a folder)")
	fl.StringVar(&g.VEX, "vex", "", "--vulns: OpenVEX document whose not_affected statements suppress their findings")
}

// resolveVulnsGate turns --vulns-db into the URL the scanner takes; the
// default database is left to a build that asks for the gate.
func resolveVulnsGate(fl *pflag.FlagSet, g *pipeline.VulnsGate) error {
	if !fl.Changed("vulns-db") {
		g.DB = ""
		return nil
	}
	db, err := databaseURL(g.DB)
	if err != nil {
		return usageError{err}
	}
	g.DB = db
	return nil
}
