package hal

import (
	"errors"
	"fmt"
	"strings"
)

// Validate reports what is wrong with a description, or nil: a name;
// sources in ascending order, each once, named as NT names them (a
// processor-specific source beyond ProfileMaximum is "Profile" + its
// description, docs/reference/hal.md#the-hals-profile-interfaces), each
// with a description, units and
// bounds 1 <= min <= default <= max; default settings that are a JSON
// object. The host checks every description a HAL gives it, and the
// conformance suite (haltest) checks them too.
func (d Description) Validate() error {
	var errs []error
	if d.Name == "" {
		errs = append(errs, errors.New("the name is empty"))
	}
	for i, s := range d.Sources {
		if i > 0 && s.Source <= d.Sources[i-1].Source {
			errs = append(errs, fmt.Errorf("sources are not in ascending order without repeats: %s after %s", s.Source, d.Sources[i-1].Source))
		}
		if s.Source < 0x18 /* ProfileMaximum: the sources WDM.H names */ && s.Name != s.Source.Name() {
			errs = append(errs, fmt.Errorf("source 0x%X is named %q, NT names it %q", uint32(s.Source), s.Name, s.Source.Name()))
		}
		if s.Source >= 0x18 && s.Name != "Profile"+s.Description {
			errs = append(errs, fmt.Errorf("source 0x%X is named %q: a processor-specific source's name is \"Profile\" + its description %q (docs/reference/hal.md#the-hals-profile-interfaces)", uint32(s.Source), s.Name, s.Description))
		}
		if s.Description == "" {
			errs = append(errs, fmt.Errorf("%s has no description", s.Name))
		}
		if s.Units == "" {
			errs = append(errs, fmt.Errorf("%s has no units", s.Name))
		}
		b := s.Bounds
		if b.Min < 1 || b.Min > b.Default || b.Default > b.Max {
			errs = append(errs, fmt.Errorf("%s's bounds want 1 <= min <= default <= max, got min=%d default=%d max=%d", s.Name, b.Min, b.Default, b.Max))
		}
	}
	if d.Settings != "" && !strings.HasPrefix(strings.TrimSpace(d.Settings), "{") {
		errs = append(errs, fmt.Errorf("the default settings are not a JSON object: %.60s", d.Settings))
	}
	return errors.Join(errs...)
}
