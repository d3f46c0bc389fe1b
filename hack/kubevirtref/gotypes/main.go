// Command gotypes prints the JSON field table of kubevirt.io/api's v1.VirtualMachine (the version in
// ../KUBEVIRT_VERSION), read from the Go types by reflection as encoding/json reads them: for every struct
// reachable from VirtualMachine, each field's JSON name, its omitempty / omitzero options and its shape. The
// plugin's golang/gojson.py applies the table to decoded JSON to write what a Go Unmarshal -> Marshal of the typed
// object writes (hack/gen_gotypes.py writes the table into the package; a unit test regenerates and compares).
//
// Output: {"root": "VirtualMachine", "types": {NAME: [[jsonName, flags, shape], ...]}} where flags is 1 for
// omitempty plus 2 for omitzero, and shape is one of: "string", "bool", "int", "float", "bytes" (a []byte, base64),
// "*SHAPE" (a pointer), "[]SHAPE" (a slice), "{}SHAPE" (a map's values), a struct NAME, or an opaque type with
// its own JSON methods: "Quantity", "Time", "IntOrString", "Raw" (kept as given), "any" (an interface).
// Embedded structs are inlined as encoding/json inlines them (typeFields: a shallower field wins; a name two
// fields of the same depth share is dropped).
package main

import (
	"encoding"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	virtv1 "kubevirt.io/api/core/v1"
)

type field struct {
	name  string
	flags int
	shape string
	depth int
	index int
}

var (
	marshaler     = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
	textMarshaler = reflect.TypeOf((*encoding.TextMarshaler)(nil)).Elem()
	types         = map[string][][]any{}
	names         = map[reflect.Type]string{}
	taken         = map[string]reflect.Type{}
)

func opaque(t reflect.Type) string {
	switch t {
	case reflect.TypeOf(resource.Quantity{}):
		return "Quantity"
	case reflect.TypeOf(metav1.Time{}), reflect.TypeOf(metav1.MicroTime{}):
		return "Time"
	case reflect.TypeOf(intstr.IntOrString{}):
		return "IntOrString"
	}
	if t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler) ||
		t.Implements(textMarshaler) || reflect.PointerTo(t).Implements(textMarshaler) {
		return "Raw"
	}
	return ""
}

func typeName(t reflect.Type) string {
	if name, ok := names[t]; ok {
		return name
	}
	name := t.Name()
	if other, ok := taken[name]; ok && other != t {
		parts := strings.Split(t.PkgPath(), "/")
		name = parts[len(parts)-1] + "." + name
		if parts[0] == "k8s.io" && len(parts) > 2 {
			name = parts[len(parts)-2] + parts[len(parts)-1] + "." + t.Name()
		}
	}
	if other, ok := taken[name]; ok && other != t {
		panic(fmt.Sprintf("two types named %s", name))
	}
	taken[name] = t
	names[t] = name
	return name
}

func shape(t reflect.Type) string {
	if t.Kind() != reflect.Pointer {
		if o := opaque(t); o != "" {
			return o
		}
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "bool"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "int"
	case reflect.Float32, reflect.Float64:
		return "float"
	case reflect.Pointer:
		return "*" + shape(t.Elem())
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 && t.Kind() == reflect.Slice {
			return "bytes"
		}
		return "[]" + shape(t.Elem())
	case reflect.Map:
		return "{}" + shape(t.Elem())
	case reflect.Interface:
		return "any"
	case reflect.Struct:
		name := typeName(t)
		if _, done := types[name]; !done {
			types[name] = nil // placeholder: recursion
			types[name] = structFields(t)
		}
		return name
	}
	panic(fmt.Sprintf("unhandled kind %s (%s)", t.Kind(), t))
}

// collect walks t's fields as encoding/json's typeFields does, embedded structs without a name inlined.
func collect(t reflect.Type, depth int, out *[]field, seen map[reflect.Type]bool) {
	if seen[t] {
		return
	}
	seen[t] = true
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if f.Anonymous {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if name == "" && ft.Kind() == reflect.Struct && opaque(ft) == "" {
				collect(ft, depth+1, out, seen)
				continue
			}
			if !f.IsExported() && ft.Kind() != reflect.Struct {
				continue
			}
		} else if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		flags := 0
		for _, o := range strings.Split(opts, ",") {
			switch o {
			case "omitempty":
				flags |= 1
			case "omitzero":
				flags |= 2
			}
		}
		*out = append(*out, field{name: name, flags: flags, shape: shape(f.Type), depth: depth, index: len(*out)})
	}
}

func structFields(t reflect.Type) [][]any {
	var all []field
	collect(t, 0, &all, map[reflect.Type]bool{})
	byName := map[string][]field{}
	for _, f := range all {
		byName[f.name] = append(byName[f.name], f)
	}
	var kept []field
	for _, fs := range byName {
		sort.SliceStable(fs, func(i, j int) bool { return fs[i].depth < fs[j].depth })
		if len(fs) > 1 && fs[0].depth == fs[1].depth {
			continue // ambiguous: encoding/json drops both
		}
		kept = append(kept, fs[0])
	}
	sort.Slice(kept, func(i, j int) bool { return kept[i].index < kept[j].index })
	rows := make([][]any, 0, len(kept))
	for _, f := range kept {
		rows = append(rows, []any{f.name, f.flags, f.shape})
	}
	return rows
}

func main() {
	root := shape(reflect.TypeOf(virtv1.VirtualMachine{}))
	out, err := json.Marshal(map[string]any{"root": root, "types": types})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Stdout.Write(append(out, '\n'))
}
