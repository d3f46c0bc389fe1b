// Command rules prints KubeVirt's own recording and alerting rules (kubevirt.io/kubevirt/pkg/monitoring/rules, the
// PrometheusRule "prometheus-kubevirt-rules" that virt-operator installs) as a Prometheus rule file: the
// PrometheusRule's spec.groups under "groups", which is the rule-file format Prometheus loads with --rule-files (the
// Prometheus Operator copies spec.groups into such a file the same way). Usage: rules [NAMESPACE] (default kubevirt,
// the namespace virt-operator passes to rules.SetupRules).
package main

import (
	"fmt"
	"os"

	"kubevirt.io/kubevirt/pkg/monitoring/rules"
	"sigs.k8s.io/yaml"
)

func main() {
	namespace := "kubevirt"
	if len(os.Args) > 1 {
		namespace = os.Args[1]
	}
	if err := rules.SetupRules(namespace); err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	rule, err := rules.BuildPrometheusRule(namespace)
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	out, err := yaml.Marshal(map[string]any{"groups": rule.Spec.Groups})
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	os.Stdout.Write(out)
}
