package config

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/proflab/proflab/core/input"
	"github.com/proflab/proflab/core/tomlstrict"
)

// Load returns the default configuration with the file at path merged over
// it (path "" means the default alone), validated.
func Load(path string) (*Config, error) {
	c := Default()
	if path != "" {
		if err := c.MergeFile(path); err != nil {
			return nil, err
		}
	}
	return c, c.Validate()
}

// MergeFile merges the TOML file at path over c. A HAL's plugin given
// there as a relative path ("./bin/proflab-hal-x", with a separator) is
// relative to the file's folder, as a sweep's config_file is relative to
// the sweep file: the configuration means the same from any working
// directory. A bare name is still looked up (beside proflab,
// PROFLAB_PLUGIN_PATH, PATH).
func (c *Config) MergeFile(path string) error {
	data, err := input.ReadFile(input.Config, path)
	if input.Refused(err) {
		return err
	}
	if err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	if err := c.Merge(path, data); err != nil {
		return err
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return fmt.Errorf("configuration: %w", err)
	}
	for name, h := range c.HAL {
		o := c.Origin("hal." + name + ".plugin")
		if !strings.HasPrefix(o, path+":") || filepath.IsAbs(h.Plugin) || !strings.ContainsAny(h.Plugin, `/`+string(filepath.Separator)) {
			continue
		}
		h.Plugin = filepath.Join(dir, filepath.FromSlash(h.Plugin))
		c.HAL[name] = h
	}
	return nil
}

// Merge merges the TOML document data, named name in errors, over c: every
// key it defines replaces c's.
func (c *Config) Merge(name string, data []byte) error {
	_, err := parse(name, data, c)
	return err
}

// Set applies one command-line override "dotted.key=value" over c, as if
// a file said `dotted.key = value`. A value that is not TOML is taken as a
// string (--config-set machine.version=6.1 works unquoted). Errors name
// the override "--config-set KEY".
func (c *Config) Set(expr string) error {
	key, val, ok := strings.Cut(expr, "=")
	key, val = strings.TrimSpace(key), strings.TrimSpace(val)
	if !ok || key == "" {
		return fmt.Errorf("--config-set %q: want key=value, for example machine.cpus=8", expr)
	}
	return c.set("--config-set "+key, key, val)
}

// SetAt is Set for an override written somewhere else than the command
// line, such as a sweep file's [config] line: where ("sweep.toml:7")
// names it in errors and in Origin, in place of "--config-set KEY".
func (c *Config) SetAt(where, expr string) error {
	key, val, ok := strings.Cut(expr, "=")
	key, val = strings.TrimSpace(key), strings.TrimSpace(val)
	if !ok || key == "" {
		return fmt.Errorf("%s: %q: want key=value", where, expr)
	}
	name := "\x00override"
	err := c.set(name, key, val)
	at := tomlstrict.Where(name, 1)
	for k, o := range c.origin {
		if o == at {
			c.origin[k] = where
		}
	}
	if err != nil {
		return errors.New(strings.ReplaceAll(err.Error(), at, where))
	}
	return nil
}

// set merges `key = val` over c, naming the document name.
func (c *Config) set(name, key, val string) error {
	doc := key + " = " + val
	if err := tomlstrict.CheckNesting(name, []byte(doc)); err != nil {
		return err
	}
	var probe map[string]any
	if _, err := toml.Decode(doc, &probe); err != nil {
		return c.Merge(name, []byte(key+" = "+quote(val)))
	}
	// A bare value that TOML reads as a number or boolean but the key
	// wants as a string (machine.version=6.1) is retried as a string.
	trial := &Config{}
	if err := trial.Merge(name, []byte(doc)); err != nil && strings.Contains(err.Error(), "type string") {
		if err2 := c.Merge(name, []byte(key+" = "+quote(val))); err2 == nil {
			return nil
		}
		return err
	}
	return c.Merge(name, []byte(doc))
}

func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// parse decodes data into a fresh Config and merges every defined key over
// base, returning base.
func parse(name string, data []byte, base *Config) (*Config, error) {
	var over Config
	md, err := tomlstrict.Decode(name, data, &over, tomlstrict.Options{
		// raw settings: the HAL decodes them strictly itself
		Ignore: func(k toml.Key) bool { return len(k) > 3 && k[0] == "hal" && k[2] == "settings" },
		Hint:   hint,
	})
	if err != nil {
		return nil, err
	}
	if base.origin == nil {
		base.origin = map[string]string{}
	}
	lines := tomlstrict.NewKeyIndex(data)
	for _, k := range md.Keys() {
		base.origin[k.String()] = tomlstrict.Where(name, lines.Line(k))
	}
	merge(reflect.ValueOf(base).Elem(), reflect.ValueOf(&over).Elem(), &md, nil)
	return base, nil
}

// hint suggests where an unknown key might belong.
func hint(k toml.Key) string {
	if len(k) >= 3 && k[0] == "hal" {
		return fmt.Sprintf("; a HAL's own settings go in [hal.%s.settings] (the keys of [hal.%s] are plugin, sha256, transport, timeout and settings)", k[1], k[1])
	}
	return ""
}

// merge copies every key of src that md defines (below path) into dst.
func merge(dst, src reflect.Value, md *toml.MetaData, path []string) {
	switch {
	case dst.Type() == reflect.TypeOf(Duration{}):
		dst.Set(src)
	case dst.Kind() == reflect.Struct:
		t := dst.Type()
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			tag := strings.Split(f.Tag.Get("toml"), ",")[0]
			if tag == "" || !f.IsExported() {
				continue
			}
			p := append(append([]string(nil), path...), tag)
			if md.IsDefined(p...) {
				merge(dst.Field(i), src.Field(i), md, p)
			}
		}
	case dst.Kind() == reflect.Map:
		if src.IsNil() {
			return
		}
		if dst.IsNil() {
			dst.Set(reflect.MakeMapWithSize(dst.Type(), src.Len()))
		}
		et := dst.Type().Elem()
		for _, k := range src.MapKeys() {
			p := append(append([]string(nil), path...), k.String())
			if et.Kind() != reflect.Struct {
				dst.SetMapIndex(k, src.MapIndex(k))
				continue
			}
			nv := reflect.New(et).Elem()
			if cur := dst.MapIndex(k); cur.IsValid() {
				nv.Set(cur)
				cloneMaps(nv)
			}
			merge(nv, src.MapIndex(k), md, p)
			dst.SetMapIndex(k, nv)
		}
	default:
		dst.Set(src)
	}
}

// cloneMaps gives a struct copy its own top-level maps, so that merging
// into it leaves the original alone.
func cloneMaps(v reflect.Value) {
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		if f.Kind() == reflect.Map && !f.IsNil() && f.CanSet() {
			m := reflect.MakeMapWithSize(f.Type(), f.Len())
			for _, k := range f.MapKeys() {
				m.SetMapIndex(k, f.MapIndex(k))
			}
			f.Set(m)
		}
	}
}
