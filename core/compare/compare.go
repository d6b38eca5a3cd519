// Package compare answers the question a researcher brings with a real
// program's profile: does NT's profiler, on the lab, agree with the
// profile I brought? Per function and per module (image), the source's
// share with its interval, the lab's with its, and whether they differ
// beyond sampling error (adjusted for the number of rows, Holm); for the
// whole profile, the total-variation distance and its calibrated p-value;
// the verdict "differ" when either family of tests rejects, the overall
// level split between them (see AlphaWhole); the smallest shift the
// comparison detects at its sample counts; and how many of the source's
// hottest functions are the lab's hottest.
//
// The tests fit the situation: a run that replayed this very source drew
// its samples from the source's shares, so only the lab's samples carry
// error and they are tested against those shares (goodness of fit); a
// source the run did not replay (a second recording of the program) is a
// sample of its own, and the two are tested as two samples.
//
// `proflab compare SOURCE RUN_DIR` prints it for a run folder's profiles
// (their accuracy.csv), and a run that imported a profile as its workload
// writes it into its folder (comparison.txt, comparison.csv).
package compare

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/proflab/proflab/core/output"
	"github.com/proflab/proflab/core/sampling"
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/core/workload/importer"
)

// Source is a source profile's flat profile: its samples per function.
type Source struct {
	// Name is the source file's name.
	Name string
	// Format and SampleType say what it is (pprof, cpu/nanoseconds).
	Format, SampleType string
	// Samples are its samples, all functions.
	Samples uint64
	// Counts are the samples of each function as a leaf, by reference
	// (name, or image!name where several images define the name).
	Counts map[string]uint64
	// Module is each function's image ("" for a process's own).
	Module map[string]string
	// Shares are each function's exact share of the source's samples
	// (Counts before rounding), the truth a replay of the source draws
	// from; nil: Counts' shares.
	Shares map[string]float64
	// SHA256 is the hex sha256 of the source file's bytes.
	SHA256 string
	// Replayed says that the lab's run replayed this very source (its
	// workload was imported from it): the lab's samples are then drawn
	// from the source's shares, and are tested against them (goodness of
	// fit) instead of as a second sample.
	Replayed bool
}

// SourceOf reads an imported profile's flat profile as the lab's buckets
// charge samples: each function's samples are its share of the source's
// weight that ran its code, its own and that of the functions inlined
// into it (Imported.CodeFlat: an address belongs to the physical
// function), times the source's sample count, rounded (exact when every
// sample weighs the same, as in CPU profiles at a fixed period; for
// weighted samples, such as perf's cycles at an adaptive period, the
// samples a share of that weight is worth).
func SourceOf(im *importer.Imported) Source {
	s := Source{Name: im.Source, Format: string(im.Format), SampleType: im.SampleType, SHA256: im.SHA256,
		Counts: map[string]uint64{}, Module: map[string]string{}, Shares: map[string]float64{}}
	// ImageRefs goes through the images' functions in order
	var refs []string
	im.Spec.ImageRefs(func(ref string, _ *workload.Function) { refs = append(refs, ref) })
	i := 0
	for _, img := range im.Spec.Images {
		for range img.Functions {
			s.Module[refs[i]] = img.Name
			i++
		}
	}
	n := float64(max(im.Samples, 0))
	for ref, share := range im.CodeFlat() {
		if share > 0 {
			s.Shares[ref] = share
		}
		c := uint64(math.Round(share * n))
		if c == 0 {
			continue
		}
		s.Counts[ref] = c
		s.Samples += c
	}
	return s
}

// Check says whether the source can be compared as a sample: a source
// that does not say how many samples its shares are of (an Instruments
// copy of cycles or bytes, a profile of weights without a count) has no
// sampling error to weigh a difference against.
func (s Source) Check() error {
	if s.Samples == 0 {
		return fmt.Errorf("%s does not say how many samples its shares are of (%s, %s): without a sample count its sampling error is unknown, so it cannot be compared with the lab's samples; its shares are in its workload (proflab workload import %s)", s.Name, s.Format, s.SampleType, s.Name)
	}
	return nil
}

// Share is one side's samples of a function or module, its share and the
// share's 95% Wilson interval.
type Share struct {
	Samples   uint64
	Share     float64
	Low, High float64
}

func shareOf(k, n uint64) Share {
	s := Share{Samples: k}
	if n > 0 {
		s.Share = float64(k) / float64(n)
	}
	s.Low, s.High = sampling.Wilson(k, n)
	return s
}

// Row is one function's or module's comparison.
type Row struct {
	Name string
	// Module is a function's image: the source's; for a function only
	// the lab has, the image its name gives when it is named by address in
	// one of the source's images ("gzip+0x1f54", as the importers name a
	// stripped binary's code), else "(not in the source)".
	Module      string
	Source, Lab Share
	// P is the two-sided test that the lab's share is the source's (see
	// Comparison.Kind); PHolm is P adjusted for the number of rows, the
	// functions' and the modules' together (Holm).
	P, PHolm float64
	// Differ is PHolm < AlphaRows: beyond sampling error.
	Differ bool
}

// NotInSource is the module of a function only the lab's profile has.
const NotInSource = "(not in the source)"

// Comparison is a source profile against one lab profile.
type Comparison struct {
	// Source is the source's file, format and sample type; Profile the
	// lab profile's file and LabSource its profile source.
	Source, Format, SampleType string
	Profile, LabSource         string
	// SourceSamples and LabSamples are the samples compared: the
	// source's in the functions the lab's profile lists, and the lab's.
	SourceSamples, LabSamples uint64
	// Coverage is the share of the source's samples in the functions the
	// lab's profile lists (its range); Outside how many source functions
	// with samples it does not list.
	Coverage float64
	Outside  int
	// Kind is the tests used, TwoSample or Fit, and Why says why in
	// words.
	Kind, Why string
	// Outcome is Agree, Differ or NoVerdict; Test is the test of the
	// whole profile (nil without a verdict).
	Outcome string
	Test    *sampling.Test
	// Functions are by source share, largest first (then lab share and
	// name); Modules likewise.
	Functions, Modules []Row
	// Detect is the smallest move into a small function the comparison
	// finds most of the time at its sample counts (nil without a
	// verdict).
	Detect *Detectable
	// TopN is how many of the hottest functions are compared (at most
	// 10); TopShared how many of the source's TopN hottest are among the
	// lab's TopN hottest; Hottest the source's hottest and LabHottest the
	// lab's. TooFew says that a side has too few samples to rank TopN
	// functions (fewer than MinPerRank each): TopShared and the hottest
	// are then not compared.
	TopN, TopShared     int
	Hottest, LabHottest string
	TooFew              bool
	// tests is how many rows were tested: the Holm family's size.
	tests int
	// Verdict says it in a sentence; Notes say what to keep in mind.
	Verdict string
	Notes   []string
}

// The outcomes of a comparison.
const (
	Agree     = "agree within sampling error"
	Differ    = "differ beyond sampling error"
	NoVerdict = "no verdict"
)

// Compare compares a source profile with one lab profile (as accuracy.csv
// has it: its samples per function). The lab's functions are matched to
// the source's by name (a name qualified in one and not the other still
// matches when it is unique). It is an error for the two to have no
// function in common, or for the source to have no sample count (see
// Source.Check); a lab profile without samples has no verdict.
func Compare(src Source, lab output.ProfileAccuracy) (Comparison, error) {
	if err := src.Check(); err != nil {
		return Comparison{}, err
	}
	c := Comparison{Source: src.Name, Format: src.Format, SampleType: src.SampleType, Profile: lab.Profile, LabSource: lab.Source}
	c.Kind, c.Why = TwoSample, "the run did not replay this source, as far as its folder says (its sha256 is not among the inputs of a result.json beside accuracy.csv): both are samples, each with its own error"
	if src.Replayed {
		c.Kind, c.Why = Fit, "the run replayed this source (its workload was imported from it; its sha256 is among the run's inputs): the lab's samples are drawn from the source's shares, and only their sampling separates the two"
	}
	refs := matchAll(src, lab.Rows)
	var pairs []pair
	used := map[string]bool{}
	images := src.images()
	for i, f := range lab.Rows {
		ref, ok := refs[i], refs[i] != ""
		p := pair{name: f.Name, module: addressImage(f.Name, images), b: f.Samples}
		if ok && !used[ref] {
			used[ref] = true
			p.a, p.module, p.truth = src.Counts[ref], src.Module[ref], src.share(ref)
			if p.module == "" {
				p.module = "(process)"
			}
		}
		pairs = append(pairs, p)
	}
	var srcAll uint64
	for ref, n := range src.Counts {
		srcAll += n
		if !used[ref] {
			c.Outside++
		}
	}
	for _, p := range pairs {
		c.SourceSamples += p.a
		c.LabSamples += p.b
	}
	if srcAll > 0 {
		c.Coverage = float64(c.SourceSamples) / float64(srcAll)
	}
	if c.SourceSamples == 0 {
		return c, fmt.Errorf("%s and %s have no function in common: is the run's workload %s, and does the profile cover its code?", src.Name, lab.Profile, src.Name)
	}
	if lab.Source != "" && lab.Source != "ProfileTime" {
		c.Notes = append(c.Notes, fmt.Sprintf("the lab's %s samples its event, not time; the source's samples are %s: their shares agree only where every function has the same rate of that event per unit of the source's (CPI, for instructions against time)", lab.Source, src.SampleType))
	}
	if c.Coverage < 0.999 {
		c.Notes = append(c.Notes, fmt.Sprintf("the lab's profile covers %.1f%% of the source's samples (%d of its functions are outside its range or never ran): the shares below are of that part", 100*c.Coverage, c.Outside))
	}
	fs := c.cells(pairs, func(p pair) string { return p.name }, func(p pair) string { return p.module })
	// modules
	byModule := map[string]pair{}
	for _, p := range pairs {
		m := byModule[p.module]
		m.name = p.module
		m.a, m.b, m.truth = m.a+p.a, m.b+p.b, m.truth+p.truth
		byModule[p.module] = m
	}
	var mods []pair
	for _, name := range sortedKeys(byModule) {
		mods = append(mods, byModule[name])
	}
	ms := c.cells(mods, func(p pair) string { return p.name }, func(pair) string { return "" })
	c.test(fs, ms)
	c.Functions, c.Modules = fs.rows, ms.rows
	c.top()
	if c.LabSamples == 0 {
		c.Outcome = NoVerdict
		c.Verdict = "no verdict: the lab's profile counted nothing"
		return c, nil
	}
	if err := c.whole(fs); err != nil {
		return c, err
	}
	c.Detect = detectable(c.Kind, c.SourceSamples, c.LabSamples, c.tests)
	c.verdict()
	if c.Outcome == Differ && lab.Outcome == output.Beyond {
		c.Notes = append(c.Notes, BiasedNote)
	}
	return c, nil
}

// images is the set of the source's modules.
func (s Source) images() map[string]bool {
	m := map[string]bool{}
	for _, mod := range s.Module {
		if mod != "" {
			m[mod] = true
		}
	}
	return m
}

// addressImage is the module of a lab function the source does not have:
// the image its name gives when it is named by address, IMAGE+0xRVA, in
// one of the source's images (a stripped binary's code, where each
// recording samples other addresses, so two recordings name other
// functions of the same image), else NotInSource.
func addressImage(name string, images map[string]bool) string {
	i := strings.LastIndex(name, "+0x")
	if i <= 0 || i+3 == len(name) || !images[name[:i]] {
		return NotInSource
	}
	for _, r := range name[i+3:] {
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			return NotInSource
		}
	}
	return name[:i]
}

// BiasedNote is the note of a comparison that differs where the lab's
// profile is itself beyond sampling error of what the lab ran: part of
// the difference is NT's view (buckets, skid, aliasing), not the source's.
const BiasedNote = "the lab's profile is itself beyond sampling error of what the lab ran (accuracy.csv): its buckets, skid or aliasing moved its samples, so part of this difference is NT's view of the program, not the source's; where functions lie closer together than a bucket (a stripped binary's addresses, each a function of a few bytes), a bucket is charged to the function at its start — compare the modules, or profile with smaller buckets (NT's smallest are 4 bytes, BucketSize 2, as proflab profile uses: functions closer than that stay together)"

// pair is a function's (or module's) samples on both sides, and its
// share of the source's samples where the source has it.
type pair struct {
	name, module string
	a, b         uint64
	truth        float64
}

// share is a function's exact share of the source's samples (Shares),
// else its count's.
func (s Source) share(ref string) float64 {
	if s.Shares != nil {
		return s.Shares[ref]
	}
	if s.Samples == 0 {
		return 0
	}
	return float64(s.Counts[ref]) / float64(s.Samples)
}

// matchAll finds the source's reference of each lab row ("" for none).
// A bare name several source images define (a library's `free@plt`, the
// same file in two processes) goes to the image holding most of the lab
// profile's samples among its rows matched without doubt: a profile
// covers a range, so its functions come from the images in that range,
// and accuracy.csv qualifies a name only where two of them define it.
func matchAll(src Source, rows []output.FunctionAccuracy) []string {
	n := namesOf(src)
	refs := make([]string, len(rows))
	weight := map[string]uint64{}
	var ambiguous []int
	for i, f := range rows {
		ref, ok := n.match(f.Name)
		switch {
		case ok:
			refs[i] = ref
			weight[src.Module[ref]] += f.Samples + 1
		case len(n.candidates(f.Name)) > 1:
			ambiguous = append(ambiguous, i)
		}
	}
	for _, i := range ambiguous {
		best, tie := "", false
		for _, ref := range n.candidates(rows[i].Name) {
			switch w, bw := weight[src.Module[ref]], weight[src.Module[best]]; {
			case best == "" || w > bw:
				best, tie = ref, false
			case w == bw:
				tie = true
			}
		}
		if best != "" && !tie && weight[src.Module[best]] > 0 {
			refs[i] = best
		}
	}
	return refs
}

// names finds a lab function's reference among every function of the
// source (with samples or not).
type names struct {
	known map[string]bool
	bare  map[string][]string // a bare name's references, sorted
}

func namesOf(src Source) names {
	n := names{known: map[string]bool{}, bare: map[string][]string{}}
	for ref := range src.Module {
		n.known[ref] = true
	}
	for ref := range src.Counts {
		n.known[ref] = true
	}
	for ref := range n.known {
		_, name, ok := strings.Cut(ref, "!")
		if !ok {
			name = ref
		}
		n.bare[name] = append(n.bare[name], ref)
	}
	for _, refs := range n.bare {
		sort.Strings(refs)
	}
	return n
}

// match is the same reference, else the one source reference with that
// bare name, else a qualified lab name's bare name.
func (n names) match(name string) (string, bool) {
	if n.known[name] {
		return name, true
	}
	if refs := n.bare[name]; len(refs) == 1 {
		return refs[0], true
	}
	if _, b, ok := strings.Cut(name, "!"); ok && n.known[b] {
		return b, true
	}
	return "", false
}

// candidates are the source references a bare name has.
func (n names) candidates(name string) []string { return n.bare[name] }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func verbS(n int) string {
	if n == 1 {
		return "s"
	}
	return ""
}

func its(n int) string {
	if n == 1 {
		return "its"
	}
	return "their"
}
