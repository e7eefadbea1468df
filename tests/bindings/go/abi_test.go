package airtest

import (
	"debug/elf"
	"errors"
	"fmt"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"libair/air"
)

var (
	reComment = regexp.MustCompile(`(?s)/\*.*?\*/|//[^\n]*`)
	reEnum    = regexp.MustCompile(`(?s)enum\s+\w*\s*\{(.*?)\}`)
	reMember  = regexp.MustCompile(`(?s)^\s*(AIR_\w+)\s*=\s*(.+?)\s*$`)
	reDefine  = regexp.MustCompile(`(?m)^\s*#\s*define\s+(AIR_\w+)[ \t]+([^\n]+)$`)
	reUnsign  = regexp.MustCompile(`\b(0x[0-9a-fA-F]+|\d+)[uUlL]+\b`)
)

// evalC evaluates a C integer constant expression with Go's constant folding.
func evalC(expr string) (int64, bool) {
	expr = reUnsign.ReplaceAllString(strings.TrimSpace(expr), "$1")
	e, err := parser.ParseExpr(expr)
	if err != nil {
		return 0, false
	}
	var eval func(ast.Expr) (constant.Value, bool)
	eval = func(n ast.Expr) (constant.Value, bool) {
		switch x := n.(type) {
		case *ast.BasicLit:
			if x.Kind != token.INT {
				return nil, false
			}
			return constant.MakeFromLiteral(x.Value, x.Kind, 0), true
		case *ast.ParenExpr:
			return eval(x.X)
		case *ast.UnaryExpr:
			v, ok := eval(x.X)
			if !ok || x.Op != token.SUB {
				return nil, false
			}
			return constant.UnaryOp(token.SUB, v, 0), true
		case *ast.BinaryExpr:
			a, ok1 := eval(x.X)
			b, ok2 := eval(x.Y)
			if !ok1 || !ok2 {
				return nil, false
			}
			switch x.Op {
			case token.SHL, token.SHR:
				s, _ := constant.Uint64Val(b)
				return constant.Shift(a, x.Op, uint(s)), true
			case token.MUL, token.ADD, token.SUB, token.OR:
				return constant.BinaryOp(a, x.Op, b), true
			}
		}
		return nil, false
	}
	v, ok := eval(e)
	if !ok {
		return 0, false
	}
	i, exact := constant.Int64Val(v)
	return i, exact
}

// headerConstants parses every enum member and numeric #define of include/air
// (version macros aside: bindings check the run-time version).
func headerConstants(t *testing.T) map[string]int64 {
	paths, _ := filepath.Glob(filepath.Join(sourceRoot(t), "include", "air", "*.h*"))
	out := map[string]int64{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		code := reComment.ReplaceAllString(string(b), " ")
		for _, m := range reEnum.FindAllStringSubmatch(code, -1) {
			for _, item := range strings.Split(m[1], ",") {
				if strings.TrimSpace(item) == "" {
					continue
				}
				mm := reMember.FindStringSubmatch(item)
				if mm == nil {
					t.Fatalf("%s: enum member without explicit value: %q", p, item)
				}
				v, ok := evalC(mm[2])
				if !ok {
					t.Fatalf("%s: cannot evaluate %s", p, mm[1])
				}
				out[mm[1]] = v
			}
		}
		for _, m := range reDefine.FindAllStringSubmatch(code, -1) {
			if strings.HasPrefix(m[1], "AIR_VERSION") {
				continue
			}
			if v, ok := evalC(m[2]); ok {
				out[m[1]] = v
			}
		}
	}
	return out
}

func TestConstantsMatchHeaders(t *testing.T) {
	hdr := headerConstants(t)
	if len(hdr) < 120 {
		t.Fatalf("header parsing found only %d constants", len(hdr))
	}
	goc := air.Constants()
	for name, want := range hdr {
		got, ok := goc[name]
		if !ok {
			t.Errorf("no Go constant for %s", name)
		} else if got != want {
			t.Errorf("%s: Go %d, header %d", name, got, want)
		}
	}
	for name := range goc {
		if _, ok := hdr[name]; !ok {
			t.Errorf("Go constant %s has no header counterpart", name)
		}
	}
}

// notWrapped are the exported functions the binding deliberately does not
// call, each with the reason.
var notWrapped = map[string]string{
	"air_config_load_file":               "LoadConfig composes parse, override and validate",
	"air_config_load_buffer":             "LoadConfigBytes composes parse, override and validate",
	"air_interrupt_wakeup_fd":            "contexts raise the interrupts: the binding installs no signal handler",
	"air_bundle_options_set_interrupt":   "Config.WriteBundle writes local files only: it takes no context",
	"air_bundle_options_set_deadline_ms": "Config.WriteBundle writes local files only: it takes no context",
	"air_list_options_set_skip_cb":       "ListRuns leaves damaged runs out, as the C default does",
	"air_sweep_points_count":             "the points are built from SweepOptions; Sweep lists the variants",
	"air_sweep_points_size":              "the points are built from SweepOptions; Variant.Point has each one",
	"air_sweep_points_path":              "the points are built from SweepOptions; Variant.Point has each one",
	"air_sweep_points_value":             "the points are built from SweepOptions; Variant.Point has each one",
	"air_sweep_failed_count":             "Sweep.Failed returns the variants that failed",
	"air_log_iter_buffered":              "LogIter.Next prepares nothing for a blocking call: nothing to skip",
}

var reMapSymbol = regexp.MustCompile(`(?m)^\s+(air_\w+);`)

// exportedFunctions are the functions of lib/libair.map and, when
// AIR_LIBRARY_PATH names the built library, its dynamic symbols.
func exportedFunctions(t *testing.T) map[string]bool {
	out := map[string]bool{}
	b, err := os.ReadFile(filepath.Join(sourceRoot(t), "lib", "libair.map"))
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range reMapSymbol.FindAllStringSubmatch(string(b), -1) {
		out[m[1]] = true
	}
	if lib := os.Getenv("AIR_LIBRARY_PATH"); lib != "" {
		f, err := elf.Open(lib)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		syms, err := f.DynamicSymbols()
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range syms {
			if strings.HasPrefix(s.Name, "air_") && s.Section != elf.SHN_UNDEF &&
				elf.ST_TYPE(s.Info) == elf.STT_FUNC {
				out[s.Name] = true
			}
		}
	}
	return out
}

// wrappedFunctions are the libair functions the binding's sources call. An
// options type of the generated options.go counts as called (its
// constructor, destructor and interrupt and deadline setters) when a
// hand-written file uses it.
func wrappedFunctions(t *testing.T) map[string]bool {
	dir := filepath.Join(sourceRoot(t), "bindings", "go")
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	files = append(files, filepath.Join(dir, "shim.c"))
	goCall := regexp.MustCompile(`\bC\.(air_\w+)`)
	cCall := regexp.MustCompile(`\b(air_\w+)\s*\(`)
	optionsType := regexp.MustCompile(`(?m)^var (\w+) = &optionsType\[C\.(air_\w+)\]`)
	out := map[string]bool{}
	families := map[string]string{} // variable -> C options type
	var handWritten []string
	for _, p := range files {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if strings.HasPrefix(text, "// Code generated") {
			for _, m := range optionsType.FindAllStringSubmatch(text, -1) {
				families[m[1]] = m[2]
			}
			continue
		}
		handWritten = append(handWritten, text)
		re := goCall
		if strings.HasSuffix(p, ".c") {
			re = cCall
		}
		for _, m := range re.FindAllStringSubmatch(text, -1) {
			out[m[1]] = true
		}
	}
	if len(families) == 0 {
		t.Fatal("no options type found in the generated files")
	}
	for v, typ := range families {
		used := regexp.MustCompile(`\b` + v + `\b`)
		for _, text := range handWritten {
			if used.MatchString(text) {
				for _, f := range []string{"_new", "_free", "_set_interrupt", "_set_deadline_ms"} {
					out[typ+f] = true
				}
				break
			}
		}
	}
	return out
}

// TestEveryExportIsWrapped: every function libair exports is called by the
// binding, or listed in notWrapped with the reason.
func TestEveryExportIsWrapped(t *testing.T) {
	exported, wrapped := exportedFunctions(t), wrappedFunctions(t)
	if len(exported) < 300 {
		t.Fatalf("found only %d exported functions", len(exported))
	}
	var missing, stale []string
	for name := range exported {
		if !wrapped[name] && notWrapped[name] == "" {
			missing = append(missing, name)
		}
	}
	for name := range notWrapped {
		if !exported[name] || wrapped[name] {
			stale = append(stale, name)
		}
	}
	sort.Strings(missing)
	sort.Strings(stale)
	if len(missing) > 0 {
		t.Errorf("exported but not wrapped by bindings/go: %s", strings.Join(missing, ", "))
	}
	if len(stale) > 0 {
		t.Errorf("in notWrapped but not exported, or wrapped after all: %s", strings.Join(stale, ", "))
	}
}

func TestVersion(t *testing.T) {
	v := air.Version()
	var ma, mi, pa uint32
	if _, err := fmt.Sscanf(v, "%d.%d.%d", &ma, &mi, &pa); err != nil {
		t.Fatalf("version %q: %v", v, err)
	}
	if got := air.VersionNumber(); got != ma<<16|mi<<8|pa {
		t.Errorf("VersionNumber %#x, Version %q", got, v)
	}
	if air.VersionNumber() < air.HeaderVersionNumber {
		t.Errorf("library %#x older than headers %#x", air.VersionNumber(), air.HeaderVersionNumber)
	}
	if air.Features()&air.FeatureThreadsafe == 0 {
		t.Errorf("features %#x lack FeatureThreadsafe", air.Features())
	}
}

// TestEnumNames checks that every value of every enum type has a name of
// its own (a String method that knows it).
func TestEnumNames(t *testing.T) {
	for name, v := range air.Constants() {
		var got string
		switch {
		case strings.HasPrefix(name, "AIR_KIND_"):
			got = "AIR_KIND_" + air.Kind(v).String()
		case strings.HasPrefix(name, "AIR_STATE_"):
			got = "AIR_STATE_" + air.State(v).String()
		case strings.HasPrefix(name, "AIR_PHASE_"):
			got = "AIR_PHASE_" + air.Phase(v).String()
		case strings.HasPrefix(name, "AIR_OPT_"):
			got = "AIR_OPT_" + air.Option(v).String()
		case strings.HasPrefix(name, "AIR_DEBUG_"):
			got = "AIR_DEBUG_" + air.DebugType(v).String()
		case strings.HasPrefix(name, "AIR_LOG_SOURCE_"):
			got = "AIR_LOG_SOURCE_" + air.LogSource(v).String()
		case strings.HasPrefix(name, "AIR_FEATURE_"):
			got = "AIR_FEATURE_" + air.Feature(v).String()
		case strings.HasPrefix(name, "AIR_CODE_SOURCE_"):
			got = "AIR_CODE_SOURCE_" + air.CodeSourceForm(v).String()
		case strings.HasPrefix(name, "AIR_FIELD_"):
			got = "AIR_FIELD_" + air.FieldKind(v).String()
		case strings.HasPrefix(name, "AIR_EXCERPT_"):
			got = "AIR_EXCERPT_" + air.ExcerptKind(v).String()
		case strings.HasPrefix(name, "AIR_NODE_SOURCE_"):
			got = "AIR_NODE_SOURCE_" + air.NodeSource(v).String()
		case strings.HasPrefix(name, "AIR_E") || name == "AIR_OK":
			got = air.Status(v).String()
		default:
			continue
		}
		if got != name {
			t.Errorf("%s (%d) is named %s", name, v, got)
		}
	}
	for p, want := range map[air.Principal]string{air.PrincipalUser: "user_name",
		air.PrincipalGroup: "group_name", air.PrincipalServicePrincipal: "service_principal_name"} {
		if p.String() != want {
			t.Errorf("principal %d is %q", p, p.String())
		}
	}
	if s := (air.FeatureHTTPS | air.FeatureOAuth).String(); s != "HTTPS|OAUTH" {
		t.Errorf("feature set %q", s)
	}
	for _, s := range []fmt.Stringer{air.State(12345), air.Phase(1), air.Kind(99), air.LogSource(9)} {
		if !strings.Contains(s.String(), "(") {
			t.Errorf("unknown value named %q", s.String())
		}
	}
	if !air.StateSuccess.IsTerminal() || air.StateRunning.IsTerminal() || air.StateOther.IsTerminal() {
		t.Error("IsTerminal")
	}
	if air.EINVAL.Error() == "" || !errors.Is(&air.Error{Code: air.ENOTFOUND}, air.ENOTFOUND) {
		t.Error("Status as an error")
	}
}
