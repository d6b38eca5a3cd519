package compare

import (
	"fmt"
	"sort"
	"strings"

	"github.com/proflab/proflab/core/sampling"
)

// MinPerRank is the samples each side needs per hottest function ranked:
// the ten hottest are compared only with 100 samples on each side, since
// a handful of samples ranks functions by chance (six samples put "10 of
// 10" in common, none "7 of 7").
const MinPerRank = 10

// top compares the hottest functions of both sides, when each has the
// samples to rank them (MinPerRank).
func (c *Comparison) top() {
	var fs []Row
	for _, f := range c.Functions {
		if f.Source.Samples > 0 || f.Lab.Samples > 0 {
			fs = append(fs, f)
		}
	}
	c.TopN = min(10, len(fs))
	if c.TopN == 0 {
		return
	}
	if need := uint64(MinPerRank * c.TopN); c.SourceSamples < need || c.LabSamples < need {
		c.TooFew = true
		return
	}
	bySource := fs // sorted by source share already
	byLab := append([]Row{}, fs...)
	sort.SliceStable(byLab, func(i, j int) bool {
		if byLab[i].Lab.Share != byLab[j].Lab.Share {
			return byLab[i].Lab.Share > byLab[j].Lab.Share
		}
		return byLab[i].Name < byLab[j].Name
	})
	inLab := map[string]bool{}
	for _, f := range byLab[:c.TopN] {
		inLab[f.Name] = true
	}
	for _, f := range bySource[:c.TopN] {
		if inLab[f.Name] {
			c.TopShared++
		}
	}
	c.Hottest, c.LabHottest = bySource[0].Name, byLab[0].Name
}

// verdict sets the outcome and says it in a sentence: "differ" when the
// whole profile's test rejects at AlphaWhole or a row (function or
// module) differs at AlphaRows.
func (c *Comparison) verdict() {
	t := *c.Test
	errs, give := "both samples' errors", "give"
	if c.Kind == Fit {
		errs, give = "the lab's sampling error", "gives"
	}
	beyond := t.P < AlphaWhole
	whole := fmt.Sprintf("the whole profile's total variation %.4f (%s alone %s %.4f on average), %s", t.TV, errs, give, t.Expected, t.PText())
	if beyond {
		whole += ", beyond them"
	}
	var parts []string
	for _, fam := range []struct {
		what string
		rows []Row
	}{{"function", c.Functions}, {"module", c.Modules}} {
		var differ []string
		for _, r := range fam.rows {
			if r.Differ {
				differ = append(differ, fmt.Sprintf("%s (p_Holm %s)", r.Name, sampling.PNumber(r.PHolm)))
			}
		}
		if len(differ) == 0 {
			continue
		}
		n := len(differ)
		part := fmt.Sprintf("%d %s%s differ%s on %s own: %s", n, fam.what, plural(n), verbS(n), its(n), strings.Join(differ[:min(3, n)], ", "))
		if n > 3 {
			part += ", …"
		}
		parts = append(parts, part)
	}
	if beyond || len(parts) > 0 {
		c.Outcome = Differ
		c.Verdict = "the lab and the source differ beyond " + errs + ": " + strings.Join(append(parts, whole), "; ")
		return
	}
	c.Outcome = Agree
	c.Verdict = "the lab agrees with the source within " + errs + ": no function or module differs on its own, and " + whole
}
