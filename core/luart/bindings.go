package luart

import (
	"slices"

	lua "github.com/yuin/gopher-lua"
)

// Bindings lists the scenario API as this runtime has registered it, for
// the reference's completeness test (docs/scenario-api.md):
//
//   - "lab.NAME" for every field of the proflab module that is not a
//     numeric constant (functions, params, seed);
//   - "m:NAME" for every machine method;
//   - "p:NAME", "t:NAME" and "k:NAME" for the methods of processes,
//     threads and kernel callers, the services of every modelled version
//     included;
//   - "s:NAME" for every kernel logger session method.
//
// The list is sorted.
func (rt *Runtime) Bindings() []string {
	var out []string
	rt.objectTypes()
	rt.labParams(rt.lab)
	rt.lab.ForEach(func(k, v lua.LValue) {
		if _, constant := v.(lua.LNumber); !constant {
			out = append(out, "lab."+lua.LVAsString(k))
		}
	})
	if rt.machIdx != nil {
		rt.machIdx.ForEach(func(k, _ lua.LValue) { out = append(out, "m:"+lua.LVAsString(k)) })
	}
	letter := map[callerKind]string{kindProcess: "p", kindThread: "t", kindKernel: "k"}
	for name, cm := range callerMethods {
		for _, k := range allKinds {
			if cm.has(k) {
				out = append(out, letter[k]+":"+name)
			}
		}
	}
	for _, name := range knownServices {
		for _, k := range allKinds {
			out = append(out, letter[k]+":"+name)
		}
	}
	if mt, ok := rt.L.GetTypeMetatable(sessionTypeName).(*lua.LTable); ok {
		if idx, ok := mt.RawGetString("__index").(*lua.LTable); ok {
			idx.ForEach(func(k, _ lua.LValue) { out = append(out, "s:"+lua.LVAsString(k)) })
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}
