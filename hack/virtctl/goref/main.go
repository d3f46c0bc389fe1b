// Command goref prints reference outputs of the Go libraries whose behaviour kubectl-instancetype
// reproduces in Python, for the differential tests (tests/unit/test_virtctl_differential.py).
//
//	goref yaml      stdin: a JSON array of documents; stdout: each as sigs.k8s.io/yaml prints it, NUL-terminated
//	goref quantity  stdin: a JSON array of strings; stdout: a JSON array of {"value": ..., "error": ...}
//	                (value = resource.ParseQuantity(s).String(), error = its error text)
//	goref requirements  stdin: a JSON array of {"instancetype": spec|null, "preference": spec, "vmi": VMI spec};
//	                stdout: a JSON array of KubeVirt's preference requirement error texts (null when met)
//	goref quantity-detail  like quantity, plus "format" (q.Format) and "exact" (q.AsDec().String())
//	goref quantity-format  stdin: a JSON array of {"value": int64, "format": "BinarySI"|...};
//	                stdout: a JSON array of resource.NewQuantity(value, format).String()
//	goref duration  stdin: a JSON array of strings; stdout: [{"value": nanoseconds as a string, "error": ...}]
//	                (time.ParseDuration), with "timeout" (clientcmd.ParseTimeout in nanoseconds) and its error
//	goref strconv   stdin: a JSON array of {"func": "ParseInt"|"ParseUint"|"ParseBool", "text", "base", "bits"};
//	                stdout: [{"value": decimal string, "error": ...}]
//	goref csv       stdin: a JSON array of strings; stdout: [{"fields": [...], "error": ...}] of pflag's
//	                readAsCSV (csv.NewReader(strings.NewReader(s)).Read(); "" gives no fields)
//	goref tabwriter stdin: a JSON array of strings; stdout: each written through
//	                tabwriter.NewWriter(out, 6, 4, 3, ' ', 0) (kubectl's table printer) and flushed, NUL-terminated
//	goref selector  stdin: a JSON array of strings; stdout: [{"value": labels.Parse(s).String(), "error": ...}]
//	goref params    stdin: a JSON array of strings; stdout: [{"values": {...}, "error": ...}] of virtctl's
//	                params.Map("volume-import", s, &typedParams{}) (size, headers, bootorder, type)
//	goref base64    stdin: a JSON array of strings; stdout: [{"value": "", "error": ...}] of
//	                base64.StdEncoding.DecodeString (only whether it fails matters)
//	goref prefixed-name  stdin: a JSON array of strings; stdout: [{"prefix", "name", "error"}] of
//	                params.SplitPrefixedName
//	goref url       stdin: a JSON array of strings; stdout: [{"scheme", "host", "port", "path", "error"}] of
//	                url.Parse (Hostname(), Port(), EscapedPath(); error without its "parse ...: " prefix)
//	goref duration-string  stdin: a JSON array of int64 nanoseconds (as strings); stdout: time.Duration(n).String()
//	                and duration.HumanDuration (k8s.io/apimachinery/pkg/util/duration), as [{"string", "human"}]
//	goref gunzip    stdin: a JSON array of base64 strings (bodies); stdout: [{"value": base64 of what was read,
//	                "error": ...}] of reading each through gzip.NewReader as net/http's transport does for an
//	                answer it asked to be gzipped (gzipReader: the reader made on the first Read, io.ReadAll)
package main

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/duration"
	"k8s.io/client-go/tools/clientcmd"
	virtv1 "kubevirt.io/api/core/v1"
	"kubevirt.io/api/instancetype/v1beta1"
	"kubevirt.io/kubevirt/pkg/instancetype/preference/requirements"
	"kubevirt.io/kubevirt/pkg/virtctl/create/params"
	"sigs.k8s.io/yaml"
)

type requirementsCase struct {
	Instancetype *v1beta1.VirtualMachineInstancetypeSpec `json:"instancetype"`
	Preference   *v1beta1.VirtualMachinePreferenceSpec   `json:"preference"`
	VMI          virtv1.VirtualMachineInstanceSpec       `json:"vmi"`
}

type quantityResult struct {
	Value *string `json:"value"`
	Error *string `json:"error"`
}

type quantityDetail struct {
	Value  *string `json:"value"`
	Format *string `json:"format"`
	Exact  *string `json:"exact"`
	Error  *string `json:"error"`
}

type quantityFormatCase struct {
	Value  int64           `json:"value"`
	Format resource.Format `json:"format"`
}

type durationResult struct {
	Value        *string `json:"value"`
	Error        *string `json:"error"`
	Timeout      *string `json:"timeout"`
	TimeoutError *string `json:"timeout_error"`
}

type strconvCase struct {
	Func string `json:"func"`
	Text string `json:"text"`
	Base int    `json:"base"`
	Bits int    `json:"bits"`
}

type typedParams struct {
	Size      *resource.Quantity `param:"size"`
	Headers   []string           `param:"headers"`
	BootOrder *uint              `param:"bootorder"`
	Type      string             `param:"type"`
}

type paramsResult struct {
	Values map[string]any `json:"values"`
	Error  *string        `json:"error"`
}

type prefixedResult struct {
	Prefix string  `json:"prefix"`
	Name   string  `json:"name"`
	Error  *string `json:"error"`
}

type csvResult struct {
	Fields []string `json:"fields"`
	Error  *string  `json:"error"`
}

// result is a value or an error text, for the modes that return one of them per input.
func result(value string, err error) quantityResult {
	if err != nil {
		message := err.Error()
		return quantityResult{Error: &message}
	}
	return quantityResult{Value: &value}
}

func readStrings(input []byte) []string {
	var texts []string
	if err := json.Unmarshal(input, &texts); err != nil {
		fail(err)
	}
	return texts
}

func emit(value any) {
	if err := json.NewEncoder(os.Stdout).Encode(value); err != nil {
		fail(err)
	}
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: goref MODE < input.json (modes: see the package comment)")
		os.Exit(2)
	}
	input, err := io.ReadAll(os.Stdin)
	if err != nil {
		fail(err)
	}
	switch os.Args[1] {
	case "yaml":
		var documents []json.RawMessage
		if err := json.Unmarshal(input, &documents); err != nil {
			fail(err)
		}
		for _, document := range documents {
			out, err := yaml.JSONToYAML(document)
			if err != nil {
				fail(err)
			}
			os.Stdout.Write(append(out, 0))
		}
	case "quantity":
		var texts []string
		if err := json.Unmarshal(input, &texts); err != nil {
			fail(err)
		}
		results := make([]quantityResult, 0, len(texts))
		for _, text := range texts {
			quantity, err := resource.ParseQuantity(text)
			if err != nil {
				message := err.Error()
				results = append(results, quantityResult{Error: &message})
				continue
			}
			value := quantity.String()
			results = append(results, quantityResult{Value: &value})
		}
		if err := json.NewEncoder(os.Stdout).Encode(results); err != nil {
			fail(err)
		}
	case "requirements":
		var cases []requirementsCase
		if err := json.Unmarshal(input, &cases); err != nil {
			fail(err)
		}
		results := make([]*string, 0, len(cases))
		for i := range cases {
			_, err := requirements.New().Check(cases[i].Instancetype, cases[i].Preference, &cases[i].VMI)
			if err != nil {
				message := err.Error()
				results = append(results, &message)
				continue
			}
			results = append(results, nil)
		}
		if err := json.NewEncoder(os.Stdout).Encode(results); err != nil {
			fail(err)
		}
	case "quantity-detail":
		results := []quantityDetail{}
		for _, text := range readStrings(input) {
			quantity, err := resource.ParseQuantity(text)
			if err != nil {
				message := err.Error()
				results = append(results, quantityDetail{Error: &message})
				continue
			}
			value, format, exact := quantity.String(), string(quantity.Format), quantity.AsDec().String()
			results = append(results, quantityDetail{Value: &value, Format: &format, Exact: &exact})
		}
		emit(results)
	case "quantity-format":
		var cases []quantityFormatCase
		if err := json.Unmarshal(input, &cases); err != nil {
			fail(err)
		}
		results := []string{}
		for _, c := range cases {
			results = append(results, resource.NewQuantity(c.Value, c.Format).String())
		}
		emit(results)
	case "duration":
		results := []durationResult{}
		for _, text := range readStrings(input) {
			var r durationResult
			if d, err := time.ParseDuration(text); err != nil {
				message := err.Error()
				r.Error = &message
			} else {
				value := strconv.FormatInt(int64(d), 10)
				r.Value = &value
			}
			if d, err := clientcmd.ParseTimeout(text); err != nil {
				message := err.Error()
				r.TimeoutError = &message
			} else {
				value := strconv.FormatInt(int64(d), 10)
				r.Timeout = &value
			}
			results = append(results, r)
		}
		emit(results)
	case "strconv":
		var cases []strconvCase
		if err := json.Unmarshal(input, &cases); err != nil {
			fail(err)
		}
		results := []quantityResult{}
		for _, c := range cases {
			switch c.Func {
			case "ParseInt":
				v, err := strconv.ParseInt(c.Text, c.Base, c.Bits)
				results = append(results, result(strconv.FormatInt(v, 10), err))
			case "ParseUint":
				v, err := strconv.ParseUint(c.Text, c.Base, c.Bits)
				results = append(results, result(strconv.FormatUint(v, 10), err))
			case "ParseBool":
				v, err := strconv.ParseBool(c.Text)
				results = append(results, result(strconv.FormatBool(v), err))
			default:
				fail(fmt.Errorf("unknown strconv function %q", c.Func))
			}
		}
		emit(results)
	case "csv":
		results := []csvResult{}
		for _, text := range readStrings(input) {
			if text == "" {
				results = append(results, csvResult{Fields: []string{}})
				continue
			}
			fields, err := csv.NewReader(strings.NewReader(text)).Read()
			if err != nil {
				message := err.Error()
				results = append(results, csvResult{Error: &message})
				continue
			}
			results = append(results, csvResult{Fields: fields})
		}
		emit(results)
	case "tabwriter":
		for _, text := range readStrings(input) {
			var out bytes.Buffer
			w := tabwriter.NewWriter(&out, 6, 4, 3, ' ', 0)
			if _, err := w.Write([]byte(text)); err != nil {
				fail(err)
			}
			if err := w.Flush(); err != nil {
				fail(err)
			}
			os.Stdout.Write(append(out.Bytes(), 0))
		}
	case "selector":
		results := []quantityResult{}
		for _, text := range readStrings(input) {
			selector, err := labels.Parse(text)
			if err != nil {
				results = append(results, result("", err))
				continue
			}
			results = append(results, result(selector.String(), nil))
		}
		emit(results)
	case "params":
		results := []paramsResult{}
		for _, text := range readStrings(input) {
			var typed typedParams
			if err := params.Map("volume-import", text, &typed); err != nil {
				message := err.Error()
				results = append(results, paramsResult{Error: &message})
				continue
			}
			values := map[string]any{}
			if typed.Size != nil {
				values["size"] = typed.Size.String()
			}
			if typed.Headers != nil {
				values["headers"] = typed.Headers
			}
			if typed.BootOrder != nil {
				values["bootorder"] = *typed.BootOrder
			}
			if typed.Type != "" {
				values["type"] = typed.Type
			}
			results = append(results, paramsResult{Values: values})
		}
		emit(results)
	case "base64":
		results := []quantityResult{}
		for _, text := range readStrings(input) {
			_, err := base64.StdEncoding.DecodeString(text)
			results = append(results, result("", err))
		}
		emit(results)
	case "prefixed-name":
		results := []prefixedResult{}
		for _, text := range readStrings(input) {
			prefix, name, err := params.SplitPrefixedName(text)
			if err != nil {
				message := err.Error()
				results = append(results, prefixedResult{Error: &message})
				continue
			}
			results = append(results, prefixedResult{Prefix: prefix, Name: name})
		}
		emit(results)
	case "url":
		type urlResult struct {
			Scheme string  `json:"scheme"`
			Host   string  `json:"host"`
			Port   string  `json:"port"`
			Path   string  `json:"path"`
			Error  *string `json:"error"`
		}
		results := []urlResult{}
		for _, text := range readStrings(input) {
			u, err := url.Parse(text)
			if err != nil {
				var urlErr *url.Error
				if errors.As(err, &urlErr) {
					err = urlErr.Err
				}
				message := err.Error()
				results = append(results, urlResult{Error: &message})
				continue
			}
			results = append(results, urlResult{Scheme: u.Scheme, Host: u.Hostname(), Port: u.Port(), Path: u.EscapedPath()})
		}
		emit(results)
	case "duration-string":
		type durationString struct {
			String string `json:"string"`
			Human  string `json:"human"`
		}
		results := []durationString{}
		for _, text := range readStrings(input) {
			n, err := strconv.ParseInt(text, 10, 64)
			if err != nil {
				fail(err)
			}
			d := time.Duration(n)
			results = append(results, durationString{String: d.String(), Human: duration.HumanDuration(d)})
		}
		emit(results)
	case "gunzip":
		results := []quantityResult{}
		for _, text := range readStrings(input) {
			body, err := base64.StdEncoding.DecodeString(text)
			if err != nil {
				fail(err)
			}
			// net/http's gzipReader.Read: gzip.NewReader on the first Read, its error returned for every Read
			var data []byte
			reader, err := gzip.NewReader(bytes.NewReader(body))
			if err == nil {
				data, err = io.ReadAll(reader)
			} else if err == io.EOF {
				err = nil // an empty body reads as empty (io.ReadAll treats EOF as the end)
			}
			results = append(results, result(base64.StdEncoding.EncodeToString(data), err))
		}
		emit(results)
	default:
		fail(fmt.Errorf("unknown mode %q", os.Args[1]))
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
