package compare

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/proflab/proflab/core/workload/importer"
)

// SummaryRows is how many of the program's hottest functions Summary
// lists.
const SummaryRows = 10

// OfRun compares each profile a run imported as its workload (ims, a
// scenario.Result's Imports, replayed: see Replays) with the profiles of
// its folder dir (their accuracy.csv): the comparisons the folder's
// comparison.txt holds. It is
// an error when there is none, saying why (a source without a sample
// count, profiles that share no function with it).
func OfRun(dir string, ims []*importer.Imported) ([]Comparison, error) {
	profs, err := ReadRun(dir)
	if err != nil {
		return nil, err
	}
	srcs, why := Replays(ims)
	cs := All(srcs, profs)
	if len(cs) > 0 {
		return cs, nil
	}
	if len(ims) == 0 {
		return nil, fmt.Errorf("the run in %s imported no profile: there is no source to compare with", dir)
	}
	if len(why) > 0 {
		return nil, errors.Join(why...)
	}
	return nil, fmt.Errorf("no profile of %s shares a function with %s: did the run profile the program's images?", dir, ims[0].Source)
}

// WriteUncompared prints a note naming the profiles of the run folder dir
// that counted samples but are in none of cs: a profile of the program's
// images whose functions the source does not name, or names in several of
// its images with nothing in the profile saying which (perf's ld-linux in
// each process a program started, each an image "ld-linux…#N" with the
// same functions). A summary that said "all N images agree" would
// otherwise pass over them. It prints nothing when every profile with
// samples is compared.
func WriteUncompared(w io.Writer, dir string, cs []Comparison) error {
	profs, err := ReadRun(dir)
	if err != nil {
		return err
	}
	compared := map[string]bool{}
	for _, c := range cs {
		compared[c.Profile] = true
	}
	var left []string
	var samples uint64
	counted := 0
	for _, p := range profs {
		if p.Samples == 0 {
			continue
		}
		counted++
		if !compared[p.Profile] {
			left = append(left, fmt.Sprintf("%s (%d samples)", p.Profile, p.Samples))
			samples += p.Samples
		}
	}
	if len(left) == 0 {
		return nil
	}
	_, err = fmt.Fprintf(w, "  note: %d of the %d profiles with samples (%d of Windows' samples) are not compared, so the verdict leaves them out: their functions are not the source's, or are ones several of the source's images define, with nothing in the profile to say which: %s\n",
		len(left), counted, samples, strings.Join(left, ", "))
	return err
}

// WriteSummary prints, per source, what a person asked `proflab
// profile`: the program's hottest functions (rows of them, by the
// source's share) as the source had them and as the lab's profiles of
// the program's images saw them, taken together (the images do not
// overlap, so each function is in one comparison), whether the hottest
// is the same (given MinPerRank samples on each side), the verdict in
// words — the program is seen as the source sees it when every image's
// comparison agrees, and otherwise the images whose comparison differs,
// with their tests — the notes every image's comparison has, and the
// smallest move the first image's comparison detects (its Detect).
func WriteSummary(w io.Writer, cs []Comparison, rows int) error {
	var b bytes.Buffer
	for i, group := range bySource(cs) {
		if i > 0 {
			b.WriteString("\n")
		}
		writeSummary(&b, group, rows)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// bySource groups the comparisons by source, in their order.
func bySource(cs []Comparison) [][]Comparison {
	var out [][]Comparison
	at := map[string]int{}
	for _, c := range cs {
		i, ok := at[c.Source]
		if !ok {
			i = len(out)
			at[c.Source] = i
			out = append(out, nil)
		}
		out[i] = append(out[i], c)
	}
	return out
}

// programRows are the program's functions with samples on either side,
// each once: a function that two profiles counted (their ranges
// overlap: an image whose range holds another's) is taken from the
// comparison of its own image (its module), else from the first. The
// comparisons' samples are summed from these rows, so that no sample
// counts twice.
func programRows(cs []Comparison) []summaryRow {
	type key struct{ name, module string }
	var fs []summaryRow
	at := map[key]int{}
	own := map[key]bool{}
	for _, c := range cs {
		img := imageOf(c)
		for _, r := range c.Functions {
			if r.Source.Samples == 0 && r.Lab.Samples == 0 {
				continue
			}
			k := key{r.Name, r.Module}
			row := summaryRow{r.Name, r.Module, r.Source.Samples, r.Lab.Samples, r.Differ}
			i, seen := at[k]
			switch {
			case !seen:
				at[k], own[k] = len(fs), r.Module == img
				fs = append(fs, row)
			case !own[k] && r.Module == img:
				fs[i], own[k] = row, true
			}
		}
	}
	return fs
}

// summaryRow is one function of the program, both sides' samples.
type summaryRow struct {
	name, module string
	src, lab     uint64
	differ       bool
}

func writeSummary(b *bytes.Buffer, cs []Comparison, rows int) {
	c0 := cs[0]
	fs := programRows(cs)
	var srcAll, labAll uint64
	sources := map[string]bool{}
	for _, c := range cs {
		sources[c.LabSource] = true
	}
	for _, r := range fs {
		srcAll += r.src
		labAll += r.lab
	}
	fmt.Fprintf(b, "%s (%s, %s) as Windows saw it: %s, %d profile%s of the program's images\n",
		filepath.Base(c0.Source), c0.Format, c0.SampleType, strings.Join(sortedKeys(sources), ", "), len(cs), plural(len(cs)))
	bySrc := append([]summaryRow{}, fs...)
	sort.SliceStable(bySrc, func(i, j int) bool {
		if bySrc[i].src != bySrc[j].src {
			return bySrc[i].src > bySrc[j].src
		}
		if bySrc[i].lab != bySrc[j].lab {
			return bySrc[i].lab > bySrc[j].lab
		}
		return bySrc[i].name < bySrc[j].name
	})
	if rows <= 0 || rows > len(bySrc) {
		rows = len(bySrc)
	}
	share := func(k, n uint64) string {
		if n == 0 {
			return "-"
		}
		return pct(float64(k) / float64(n))
	}
	cells := [][]string{{"function", "module", "source", "Windows", ""}}
	for _, r := range bySrc[:rows] {
		mark := ""
		if r.differ {
			mark = "differs"
		}
		cells = append(cells, []string{r.name, r.module, share(r.src, srcAll), share(r.lab, labAll), mark})
	}
	alignCells(b, cells, 2)
	fmt.Fprintf(b, "  (shares of each side's samples in the profiled images: %d of the source's, %d of Windows')\n", srcAll, labAll)
	switch {
	case len(bySrc) == 0 || labAll == 0:
	case srcAll < MinPerRank || labAll < MinPerRank:
		fmt.Fprintf(b, "  hottest: too few samples to rank (%d of the source's, %d of Windows'; %d each at least)\n", srcAll, labAll, MinPerRank)
	default:
		hot := bySrc[0]
		labHot := hot
		for _, r := range fs {
			if r.lab > labHot.lab || (r.lab == labHot.lab && r.name < labHot.name) {
				labHot = r
			}
		}
		if labHot.name == hot.name && labHot.module == hot.module {
			fmt.Fprintf(b, "  hottest: the same on both sides, %s\n", hot.name)
		} else {
			fmt.Fprintf(b, "  hottest: not the same: the source's is %s (%s), Windows' is %s (%s)\n", hot.name, share(hot.src, srcAll), labHot.name, share(labHot.lab, labAll))
		}
	}
	fmt.Fprintf(b, "  verdict: %s\n", verdictWords(cs))
	if n := roundingSummary(cs); n != "" {
		fmt.Fprintf(b, "  likely cause: %s\n", n)
	}
	shared := sharedNotes(cs)
	for _, n := range shared {
		fmt.Fprintf(b, "  note: %s\n", n)
	}
	if imgs := biasedImages(cs); len(imgs) > 0 && !slices.Contains(shared, BiasedNote) {
		fmt.Fprintf(b, "  note (%s): %s\n", strings.Join(imgs, ", "), BiasedNote)
	}
	for _, c := range cs {
		if c.Detect != nil {
			fmt.Fprintf(b, "  power (%s): %s\n", imageOf(c), c.Detect)
			break
		}
	}
}

// sharedNotes are the notes every comparison has, in the first's order:
// what holds for the whole program (a counter that samples its event, not
// time), not one image's coverage of it.
func sharedNotes(cs []Comparison) []string {
	count := map[string]int{}
	for _, c := range cs {
		seen := map[string]bool{}
		for _, n := range c.Notes {
			if !seen[n] {
				seen[n] = true
				count[n]++
			}
		}
	}
	var out []string
	for _, n := range cs[0].Notes {
		if count[n] == len(cs) && n != cs[0].Rounding { // the rounding is said per image
			out = append(out, n)
			count[n] = 0 // once
		}
	}
	return out
}

// biasedImages are the images whose comparison differs where the lab's
// profile is itself beyond sampling error of what the lab ran
// (BiasedNote): the verdict names them as differing, and the note says
// why part of it is NT's view, not the source's. An image whose
// difference the likely-cause line already puts down to bucket rounding
// (Rounding) is said once, there.
func biasedImages(cs []Comparison) []string {
	var out []string
	for _, c := range cs {
		if c.Outcome == Differ && c.Rounding == "" && slices.Contains(c.Notes, BiasedNote) {
			out = append(out, imageOf(c))
		}
	}
	return out
}

// verdictWords says the comparisons' outcome in words.
func verdictWords(cs []Comparison) string {
	var differ, none []string
	agree := 0
	for _, c := range cs {
		switch c.Outcome {
		case Differ:
			differ = append(differ, fmt.Sprintf("in %s %s", imageOf(c), c.Verdict))
		case Agree:
			agree++
		default:
			none = append(none, imageOf(c))
		}
	}
	switch {
	case len(differ) > 0 && allRounding(cs):
		return "Windows would not see the program as the source does, likely only by NT's bucket rounding of functions named by their address (the likely cause below): " + strings.Join(differ, "; ")
	case len(differ) > 0:
		return "Windows would not see the program as the source does: " + strings.Join(differ, "; ")
	case agree == 0:
		return "no verdict: Windows' profiles of the program's images counted nothing (" + strings.Join(none, ", ") + "): run longer (--duration) or sample more often (--interval)"
	}
	s := fmt.Sprintf("Windows would see the program as the source does: %s within sampling error", agreeWords(agree))
	if cs[0].Kind == Fit {
		s += " (the lab's samples tested against the source's shares: the run replayed the source)"
	}
	if len(none) > 0 {
		s += fmt.Sprintf(" (no samples in %s)", strings.Join(none, ", "))
	}
	return s
}

func agreeWords(n int) string {
	if n == 1 {
		return "its profile agrees with the source"
	}
	return fmt.Sprintf("the profiles of all %d images agree with the source", n)
}

// imageOf names a comparison by the image of its profile: the module
// holding most of the source's samples it compares.
func imageOf(c Comparison) string {
	for _, m := range c.Modules {
		if m.Name != NotInSource {
			return m.Name
		}
	}
	return c.Profile
}

// alignCells writes cells as a table indented by two spaces: the first
// left columns aligned left, the others right, the last left.
func alignCells(b *bytes.Buffer, cells [][]string, left int) {
	widths := make([]int, len(cells[0]))
	for _, row := range cells {
		for j, c := range row {
			widths[j] = max(widths[j], utf8.RuneCountInString(c))
		}
	}
	for _, row := range cells {
		var line strings.Builder
		line.WriteString(" ")
		for j, c := range row {
			pad := strings.Repeat(" ", widths[j]-utf8.RuneCountInString(c))
			line.WriteString(" ")
			if j < left || j == len(row)-1 {
				line.WriteString(c + pad)
			} else {
				line.WriteString(pad + c)
			}
		}
		b.WriteString(strings.TrimRight(line.String(), " ") + "\n")
	}
}
