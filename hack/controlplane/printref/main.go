// Command printref prints what kubectl v1.36.3's printers print, for the differential tests of the plugin's
// printers (tests/unit/test_printers_differential.py). It lives in the control plane's module, so it links the
// very packages the kubectl binary is built from (k8s.io/cli-runtime, k8s.io/client-go/util/jsonpath,
// k8s.io/kubectl/pkg/cmd/get, Go's text/template and fmt) at the same versions, and answers hundreds of cases
// in one process where a kubectl run per case would cost a process start and a request each.
//
//	printref print  stdin: a JSON array of {"output", "object", "list", "allowMissing", "noHeaders", "sortBy",
//	                "env"}; stdout: a JSON array of {"stdout", "stderr", "exit"} (stdout and stderr in base64).
//
// Each case is what `kubectl get ... -o OUTPUT` does once it holds the objects (printGeneric in
// k8s.io/kubectl/pkg/cmd/get/get.go): the printer comes from get.NewGetPrintFlags().ToPrinter() (with
// --allow-missing-template-keys, --no-headers), wrapped in a TypeSetter and, with --sort-by, a SortingPrinter;
// "list" objects are the items of the v1 List printGeneric builds; an error goes through cmdutil.CheckErr, as
// kubectl's main does, and its text and exit code are taken from the fatal handler. klog.Exitf (an unsortable
// --sort-by value) is caught through klog.OsExit; its klog header is left out of "stderr" (it holds a time and a
// process id).
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/klog/v2"
	"k8s.io/kubectl/pkg/cmd/get"
	cmdutil "k8s.io/kubectl/pkg/cmd/util"
	"k8s.io/kubectl/pkg/scheme"
)

type printCase struct {
	Output       string            `json:"output"`
	Object       json.RawMessage   `json:"object"`
	List         bool              `json:"list"`
	AllowMissing *bool             `json:"allowMissing"`
	NoHeaders    bool              `json:"noHeaders"`
	SortBy       string            `json:"sortBy"`
	Env          map[string]string `json:"env"`
}

// Stdout and Stderr are bytes (base64 in JSON): a template may print bytes that are not UTF-8.
type printResult struct {
	Stdout []byte `json:"stdout"`
	Stderr []byte `json:"stderr"`
	Exit   int    `json:"exit"`
}

type exitPanic struct{ code int }

func printOne(c printCase) (result printResult) {
	for key, value := range c.Env {
		os.Setenv(key, value)
		defer os.Unsetenv(key)
	}
	var out bytes.Buffer
	var klogBuf bytes.Buffer
	klog.SetOutput(&klogBuf)
	klog.LogToStderr(false)
	klog.OsExit = func(code int) { panic(exitPanic{code}) }
	defer func() {
		if x := recover(); x != nil {
			exit, ok := x.(exitPanic)
			if !ok {
				panic(x)
			}
			// "F1127 01:02:03.123456   12345 sorter.go:123] message" (klog writes it once per severity): the
			// first message only
			text, _, _ := strings.Cut(klogBuf.String(), "\n")
			if i := strings.Index(text, "] "); i >= 0 {
				text = text[i+2:]
			}
			text += "\n"
			result = printResult{Stdout: out.Bytes(), Stderr: []byte(text), Exit: exit.code}
		}
	}()
	err := printCaseTo(c, &out)
	result.Stdout = out.Bytes()
	if err != nil {
		cmdutil.BehaviorOnFatal(func(msg string, code int) {
			// cmdutil's fatal: the message with a newline added when it has none
			if len(msg) > 0 && !strings.HasSuffix(msg, "\n") {
				msg += "\n"
			}
			result.Stderr, result.Exit = []byte(msg), code
		})
		cmdutil.CheckErr(err)
	}
	return result
}

func printCaseTo(c printCase, w io.Writer) error {
	flags := get.NewGetPrintFlags()
	*flags.OutputFormat = c.Output
	*flags.NoHeaders = c.NoHeaders
	if c.AllowMissing != nil {
		*flags.TemplateFlags.AllowMissingKeys = *c.AllowMissing
	}
	printer, err := flags.ToPrinter()
	if err != nil {
		return err
	}
	printer, err = printers.NewTypeSetter(scheme.Scheme).WrapToPrinter(printer, nil)
	if err != nil {
		return err
	}
	if len(c.SortBy) > 0 {
		printer = &get.SortingPrinter{Delegate: printer, SortField: c.SortBy}
	}
	var obj runtime.Object
	if c.List {
		// each item decoded from its own bytes, as the client decodes what the server sent
		var items []json.RawMessage
		if err := json.Unmarshal(c.Object, &items); err != nil {
			return err
		}
		// printGeneric's list for display: kind List, apiVersion v1, the listed resourceVersion ("")
		list := &unstructured.UnstructuredList{Object: map[string]interface{}{
			"kind": "List", "apiVersion": "v1", "metadata": map[string]interface{}{"resourceVersion": ""},
		}}
		for _, item := range items {
			decoded, _, err := unstructured.UnstructuredJSONScheme.Decode(item, nil, nil)
			if err != nil {
				return err
			}
			list.Items = append(list.Items, *decoded.(*unstructured.Unstructured))
		}
		obj = list
	} else {
		decoded, _, err := unstructured.UnstructuredJSONScheme.Decode(c.Object, nil, nil)
		if err != nil {
			return err
		}
		obj = decoded
	}
	return printer.PrintObj(obj, w)
}

func main() {
	if len(os.Args) != 2 || os.Args[1] != "print" {
		fmt.Fprintln(os.Stderr, "usage: printref print < cases.json")
		os.Exit(2)
	}
	var cases []printCase
	if err := json.NewDecoder(os.Stdin).Decode(&cases); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	results := make([]printResult, 0, len(cases))
	for _, c := range cases {
		results = append(results, printOne(c))
	}
	if err := json.NewEncoder(os.Stdout).Encode(results); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}
