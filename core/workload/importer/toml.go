package importer

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/proflab/proflab/core/input"
	"github.com/proflab/proflab/core/workload"
	"github.com/proflab/proflab/core/workload/importer/profmodel"
)

// TOML is the workload as TOML: what [Imported.WriteTOML] writes.
func (im *Imported) TOML() ([]byte, error) {
	var b bytes.Buffer
	if err := im.WriteTOML(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// WriteTOML writes the workload as TOML to w, as it goes: a header
// comment naming the source file, its sha256, format, sample type,
// period and sample count and the notes, then [workload.WriteTOML]'s
// TOML. Every text of the header is one comment line without control
// characters, and every name in the TOML is UTF-8, so that what it
// writes reads back ([Imported.Check] verifies that the text reads back
// strictly as the same workload; the package's tests check it on every
// import they make). It returns w's first error.
func (im *Imported) WriteTOML(w io.Writer) error {
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "# Imported by `proflab workload import` from %s\n", oneLine(im.Source))
	fmt.Fprintf(b, "# sha256: %s\n", oneLine(im.SHA256))
	fmt.Fprintf(b, "# format: %s; sample type: %s\n", oneLine(string(im.Format)), oneLine(im.SampleType))
	fmt.Fprintf(b, "# period: %s\n", im.periodText())
	fmt.Fprintf(b, "# samples: %d\n", im.Samples)
	for _, n := range im.Warnings {
		fmt.Fprintf(b, "# warning: %s\n", oneLine(n))
	}
	for _, n := range im.Notes {
		fmt.Fprintf(b, "# note: %s\n", oneLine(n))
	}
	b.WriteString("\n")
	if err := b.Flush(); err != nil {
		return err
	}
	if err := workload.WriteTOML(w, im.Spec); err != nil {
		return fmt.Errorf("writing the workload of %s: %w", oneLine(im.Source), err)
	}
	return nil
}

// CheckSize refuses a workload whose TOML would be larger than a
// workload file may be ([input.Workload]'s limit, 256 MiB), which m:run
// would refuse: the error says how large it is and how to import less.
// It writes the TOML to count its bytes, up to the limit; `proflab
// workload import` calls it before it writes anything.
func (im *Imported) CheckSize() error { return im.checkSize(input.Workload.Limit) }

// CheckReadable refuses a workload m:run would refuse, so that whatever
// `proflab workload import` writes, m:run reads: one whose TOML is too
// large (CheckSize), or one that does not resolve, as a run resolves it,
// for the architecture it was imported for (a bug of the format's
// importer: each checks its input before). `proflab workload import`
// calls it before it writes anything. (A run that imports a profile
// itself resolves the workload anyway: Import does not do it twice.)
func (im *Imported) CheckReadable() error {
	if err := im.CheckSize(); err != nil {
		return err
	}
	t := im.target
	if t == (profmodel.Target{}) { // an Imported not made by Import: x64's
		t, _ = profmodel.TargetFor("")
	}
	if _, err := im.Spec.Resolve(t.Resolving()); err != nil {
		first, rest, _ := strings.Cut(err.Error(), "\n")
		if rest != "" {
			first += fmt.Sprintf(" (and %d more problems)", strings.Count(rest, "\n")+1)
		}
		return &Error{Source: im.Source, Msg: fmt.Sprintf("the workload imported from it would be refused by m:run (%s), and nothing was written: this is a bug of proflab's %s importer; please report it with the file", first, im.Format)}
	}
	return nil
}

// checkSize is CheckSize with the limit max.
func (im *Imported) checkSize(max int64) error {
	c := &sizeCounter{max: max}
	err := im.WriteTOML(c)
	if !errors.Is(err, errTooLarge) {
		return err
	}
	var funcs, stacks int
	for _, img := range im.Spec.Images {
		funcs += len(img.Functions)
	}
	for _, p := range im.Spec.Processes {
		stacks += len(p.Stacks)
		for _, t := range p.Threads {
			stacks += len(t.Stacks)
		}
	}
	return &Error{Source: im.Source, Msg: fmt.Sprintf("the workload (%d functions, %d stacks) would be more than %s of TOML, the most a workload file may have (m:run could not read it), and nothing was written: "+
		"import less of the profile: --process NAME, --drop-idle, perf script --pid/--tid/--time/--cpu, pprof -focus/-tagfocus/-nodecount -proto, or fewer seconds recorded",
		funcs, stacks, input.Size(max))}
}

// errTooLarge is sizeCounter's error past its limit.
var errTooLarge = errors.New("too large")

// sizeCounter counts the bytes written to it and fails past max.
type sizeCounter struct{ n, max int64 }

func (c *sizeCounter) Write(p []byte) (int, error) {
	if c.n += int64(len(p)); c.n > c.max {
		return 0, errTooLarge
	}
	return len(p), nil
}

// Check verifies that text, the workload's TOML, parses back strictly
// ([workload.Parse]) to the same workload; an error is a bug in proflab.
func (im *Imported) Check(text []byte) error {
	back, err := workload.Parse(im.Source+" (imported)", text)
	if err != nil {
		return fmt.Errorf("the workload imported from %s does not parse back (a bug in proflab): %w", im.Source, err)
	}
	if !reflect.DeepEqual(back, im.Spec) {
		return fmt.Errorf("the workload imported from %s does not read back as written (a bug in proflab)", im.Source)
	}
	return nil
}

// periodText is the period with its unit and type.
func (im *Imported) periodText() string {
	if im.Period == 0 {
		return "unknown (the source gives none)"
	}
	s := strconv.FormatFloat(im.Period, 'f', -1, 64)
	if im.PeriodUnit != "" {
		s += " " + oneLine(im.PeriodUnit)
	}
	if im.PeriodType != "" {
		s += " of " + oneLine(im.PeriodType)
	}
	return s
}

// Summary is a one-line account of the import: functions, images,
// stacks, processes, threads and samples.
func (im *Imported) Summary() string {
	var funcs, stacks, threads int
	for _, img := range im.Spec.Images {
		funcs += len(img.Functions)
	}
	for _, p := range im.Spec.Processes {
		stacks += len(p.Stacks)
		threads += len(p.Threads)
		for _, t := range p.Threads {
			stacks += len(t.Stacks)
		}
	}
	return fmt.Sprintf("%s: %s, %d functions in %d images, %d stacks, %d processes, %d threads, %d samples",
		im.Source, im.Format, funcs, len(im.Spec.Images), stacks, len(im.Spec.Processes), threads, im.Samples)
}

// Flat is the source's flat profile as the workload holds it: each
// function reference's share of the samples' weight as a leaf, the
// innermost frame, inlined or not (pprof's flat; the shares add up to
// 1). It is what the lab's pprof profiles of the workload, which keep
// the inlined frames, should match within sampling error.
func (im *Imported) Flat() map[string]float64 { return im.flat(false) }

// CodeFlat is the source's flat profile as an address lookup makes it:
// each function reference's share of the samples' weight that ran its
// code, a leaf's own and that of the functions inlined into it (the
// shares add up to 1). It is what the lab's buckets, kernrate and the
// logger's samples of the workload should match within sampling error:
// they charge an address to the physical function whose symbol holds it.
func (im *Imported) CodeFlat() map[string]float64 { return im.flat(true) }

// flat is Flat, or CodeFlat when code.
func (im *Imported) flat(code bool) map[string]float64 {
	// a stack's weight is instructions: its time is that times its
	// physical function's CPI (see workloadStacks)
	cpi := map[string]float64{}
	inline := map[string]bool{}
	im.Spec.ImageRefs(func(ref string, f *workload.Function) {
		cpi[ref] = f.CPI
		inline[ref] = f.Inline
	})
	out := map[string]float64{}
	var total float64
	add := func(ss []workload.Stack) {
		for _, s := range ss {
			ph := physicalFrame(s, inline)
			w := s.Weight
			if c := cpi[s.Frames[ph]]; c > 0 {
				w *= c
			}
			k := s.Frames[0]
			if code {
				k = s.Frames[ph]
			}
			out[k] += w
			total += w
		}
	}
	for _, p := range im.Spec.Processes {
		add(p.Stacks)
		for _, t := range p.Threads {
			add(t.Stacks)
		}
	}
	for k := range out {
		out[k] /= total
	}
	return out
}

// physicalFrame is the index of s's frame whose code runs: the
// innermost frame that is neither listed in s.Inlined nor an inline
// function's.
func physicalFrame(s workload.Stack, inline map[string]bool) int {
	i := 0
	for i < len(s.Frames)-1 && (inline[s.Frames[i]] || slices.Contains(s.Inlined, i+1)) {
		i++
	}
	return i
}

// oneLine keeps a text on one comment line.
// Control characters, which a TOML comment cannot hold, become U+FFFD.
func oneLine(s string) string {
	s = strings.ToValidUTF8(strings.NewReplacer("\n", " ", "\r", " ").Replace(s), "\uFFFD")
	return strings.Map(func(r rune) rune {
		if (r < 0x20 && r != '\t') || r == 0x7f {
			return '\uFFFD'
		}
		return r
	}, s)
}
