package luart

import (
	"fmt"
	"math"

	lua "github.com/yuin/gopher-lua"
)

// halSettings reads lab.machine{ hal_settings = { NAME = { key = value,
// ... }, ... } }: per HAL the machine lists, settings merged key by key
// over the configuration's `[hal.NAME.settings]` for this machine only
// (what `--config-set hal.NAME.settings.key=value` does for every
// machine). Values are Lua booleans, strings, integral numbers (others
// are an error: settings are integers), arrays and tables of them. The
// HAL decodes them strictly, so an unknown key is the HAL's error.
func halSettings(f *Fields, names []string) map[string]map[string]any {
	lv := f.Get("hal_settings")
	if lv == lua.LNil {
		return nil
	}
	t, ok := lv.(*lua.LTable)
	if !ok {
		f.Errorf("hal_settings", "expected a table of HAL name → settings table, got %s", typeName(lv))
	}
	out := map[string]map[string]any{}
	var bad string
	t.ForEach(func(k, v lua.LValue) {
		if bad != "" {
			return
		}
		name, isString := k.(lua.LString)
		if !isString {
			bad = fmt.Sprintf("keys are HAL names, got a %s key", typeName(k))
			return
		}
		if !contains(names, string(name)) {
			bad = fmt.Sprintf("%q is not one of this machine's HALs (%v)", string(name), names)
			return
		}
		st, isTable := v.(*lua.LTable)
		if !isTable {
			bad = fmt.Sprintf("%s: expected a settings table, got %s", name, typeName(v))
			return
		}
		m, err := settingsTable(st, string(name))
		if err != nil {
			bad = err.Error()
			return
		}
		out[string(name)] = m
	})
	if bad != "" {
		f.Errorf("hal_settings", "%s", bad)
	}
	return out
}

// settingsTable converts a Lua settings table (string keys) to a map.
func settingsTable(t *lua.LTable, path string) (map[string]any, error) {
	out := map[string]any{}
	var err error
	t.ForEach(func(k, v lua.LValue) {
		if err != nil {
			return
		}
		ks, ok := k.(lua.LString)
		if !ok {
			err = fmt.Errorf("%s: setting names are strings, got a %s key", path, typeName(k))
			return
		}
		out[string(ks)], err = settingValue(v, path+"."+string(ks))
	})
	return out, err
}

// settingValue converts one Lua value of a settings table.
func settingValue(v lua.LValue, path string) (any, error) {
	switch x := v.(type) {
	case lua.LBool:
		return bool(x), nil
	case lua.LString:
		return string(x), nil
	case lua.LNumber:
		f := float64(x)
		if f != math.Trunc(f) || math.Abs(f) > 1<<53 {
			return nil, fmt.Errorf("%s = %s: settings are integers up to 2^53", path, fmtNumber(f))
		}
		return int64(f), nil
	case *lua.LTable:
		if n := x.Len(); n > 0 {
			arr := make([]any, 0, n)
			for i := 1; i <= n; i++ {
				e, err := settingValue(x.RawGetInt(i), fmt.Sprintf("%s[%d]", path, i))
				if err != nil {
					return nil, err
				}
				arr = append(arr, e)
			}
			return arr, nil
		}
		if k, _ := x.Next(lua.LNil); k == lua.LNil {
			return []any{}, nil // {}: an empty list (skid = {} means no skid)
		}
		return settingsTable(x, path)
	}
	return nil, fmt.Errorf("%s: a %s cannot be a setting", path, typeName(v))
}
