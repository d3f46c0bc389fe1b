"""Go standard-library and Kubernetes-library behaviour, reproduced where users see its results: the only home of
Go behaviour in the package.

One module per Go package, each importable alone (nothing is imported here, start-up time matters):
``strconv`` (number and bool parsing, ``%q`` quoting), ``encoding_csv`` (pflag's string-slice records),
``encoding_base64`` (``StdEncoding`` decoding), ``duration`` (``time.ParseDuration``, ``Duration.String``,
kubectl's ``--request-timeout``, apimachinery's ``HumanDuration``), ``neturl`` (``url.Parse``), ``httpproxy``
(``golang.org/x/net/http/httpproxy``: proxies from the environment, ``NO_PROXY``), ``quantity``
(apimachinery's ``resource.Quantity``: parsing, ``String()``, ``Value()``), ``tabwriter`` (kubectl's
tables), ``goyaml`` (``sigs.k8s.io/yaml``'s printer), ``yamltojson`` (how kubectl reads ``-f``:
``sigs.k8s.io/yaml`` over go-yaml v2), ``validation`` (apimachinery's name checks), ``jsonpath``,
``text_template`` (a package, as Go's ``text/template`` and ``text/template/parse``: kubectl's go-template
printer), ``fmt`` (``Sprintf``/``Sprint``, ``strconv.FormatFloat``), ``encoding_json`` (``json.Marshal``, the
scanner's syntax errors), ``goos`` (``GOOS`` differences, ``fs.PathError`` texts), ``cobra`` (cobra's suggestions,
the one did-you-mean policy).
Differential tests compare each with the Go code itself (``hack/virtctl/goref``).
"""
