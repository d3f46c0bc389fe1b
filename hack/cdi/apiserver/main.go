// cdi-apiserver is CDI's kubevirt.io/containerized-data-importer/cmd/cdi-apiserver (v1.64.0) with two flags more:
// -listen and -port. CDI's own main hard-codes 0.0.0.0:8443 (defaultHost, defaultPort), which allows one local
// control plane per machine; the test sessions and agents here run several at once, each with its own port. The
// rest of main is CDI's, statement for statement: the same environment (CERT_FILE, KEY_FILE), clients, controller
// runtime cluster, field index, watchers and apiserver.NewCdiAPIServer.
package main

import (
	"flag"
	"os"

	"github.com/kelseyhightower/envconfig"
	snapshotv1 "github.com/kubernetes-csi/external-snapshotter/client/v6/apis/volumesnapshot/v1"
	snapclient "github.com/kubernetes-csi/external-snapshotter/client/v6/clientset/versioned"
	"github.com/pkg/errors"

	corev1 "k8s.io/api/core/v1"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
	aggregatorclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"

	"sigs.k8s.io/controller-runtime/pkg/cluster"
	"sigs.k8s.io/controller-runtime/pkg/manager/signals"

	cdiv1 "kubevirt.io/containerized-data-importer-api/pkg/apis/core/v1beta1"
	"kubevirt.io/containerized-data-importer/pkg/apiserver"
	cdiclient "kubevirt.io/containerized-data-importer/pkg/client/clientset/versioned"
	"kubevirt.io/containerized-data-importer/pkg/common"
	dvc "kubevirt.io/containerized-data-importer/pkg/controller/datavolume"
	certwatcher "kubevirt.io/containerized-data-importer/pkg/util/cert/watcher"
	cryptowatch "kubevirt.io/containerized-data-importer/pkg/util/tls-crypto-watch"
	"kubevirt.io/containerized-data-importer/pkg/version/verflag"
)

type apiServerEnvs struct {
	CertFile string `default:"/var/run/certs/cdi-apiserver-server-cert/tls.crt" split_words:"true"`
	KeyFile  string `default:"/var/run/certs/cdi-apiserver-server-cert/tls.key" split_words:"true"`
}

func main() {
	var configPath, kubeURL, listen string
	var port int
	flag.StringVar(&configPath, "kubeconfig", os.Getenv("KUBECONFIG"), "(Optional) Overrides $KUBECONFIG")
	flag.StringVar(&kubeURL, "server", "", "(Optional) URL address of a remote api server.  Do not set for local clusters.")
	flag.StringVar(&listen, "listen", "0.0.0.0", "address to listen on (CDI's main: 0.0.0.0)")
	flag.IntVar(&port, "port", 8443, "port to listen on (CDI's main: 8443)")
	klog.InitFlags(nil)
	flag.Parse()
	defer klog.Flush()

	installerLabels := map[string]string{}
	if partOfVal := os.Getenv(common.InstallerPartOfLabel); len(partOfVal) != 0 {
		installerLabels[common.AppKubernetesPartOfLabel] = partOfVal
	}
	if versionVal := os.Getenv(common.InstallerVersionLabel); len(versionVal) != 0 {
		installerLabels[common.AppKubernetesVersionLabel] = versionVal
	}

	verflag.PrintAndExitIfRequested()

	var apiServerArgs apiServerEnvs
	if err := envconfig.Process("", &apiServerArgs); err != nil {
		klog.Fatalf("Unable to get environment variables: %v\n", errors.WithStack(err))
	}

	utilruntime.Must(corev1.AddToScheme(scheme.Scheme))
	utilruntime.Must(cdiv1.AddToScheme(scheme.Scheme))
	utilruntime.Must(snapshotv1.AddToScheme(scheme.Scheme))

	cfg, err := clientcmd.BuildConfigFromFlags(kubeURL, configPath)
	if err != nil {
		klog.Fatalf("Unable to get kube config: %v\n", errors.WithStack(err))
	}
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		klog.Fatalf("Unable to get kube client: %v\n", errors.WithStack(err))
	}
	aggregatorClient := aggregatorclient.NewForConfigOrDie(cfg)
	cdiClient := cdiclient.NewForConfigOrDie(cfg)
	snapClient := snapclient.NewForConfigOrDie(cfg)

	cluster, err := cluster.New(cfg)
	if err != nil {
		klog.Fatalf("Unable to create controller runtime cluster: %v\n", errors.WithStack(err))
	}
	if err := cdiv1.AddToScheme(cluster.GetScheme()); err != nil {
		klog.Fatalf("Unable to add to scheme: %v\n", errors.WithStack(err))
	}
	if err := dvc.CreateAvailablePersistentVolumeIndex(cluster.GetFieldIndexer()); err != nil {
		klog.Fatalf("Unable to create field index: %v\n", errors.WithStack(err))
	}

	ctx := signals.SetupSignalHandler()

	authConfigWatcher, err := apiserver.NewAuthConfigWatcher(ctx, client)
	if err != nil {
		klog.Fatalf("Unable to create authConfigWatcher: %v\n", errors.WithStack(err))
	}
	cdiConfigTLSWatcher, err := cryptowatch.NewCdiConfigTLSWatcher(ctx, cdiClient)
	if err != nil {
		klog.Fatalf("Unable to create cdiConfigTLSWatcher: %v\n", errors.WithStack(err))
	}
	authorizor, err := apiserver.NewAuthorizorFromConfig(cfg, authConfigWatcher)
	if err != nil {
		klog.Fatalf("Unable to create authorizor: %v\n", errors.WithStack(err))
	}
	certWatcher, err := certwatcher.New(apiServerArgs.CertFile, apiServerArgs.KeyFile)
	if err != nil {
		klog.Fatalf("Unable to create certwatcher: %v\n", errors.WithStack(err))
	}

	cdiAPIApp, err := apiserver.NewCdiAPIServer(listen, uint(port), client, aggregatorClient, cdiClient, snapClient,
		cluster.GetClient(), authorizor, authConfigWatcher, cdiConfigTLSWatcher, certWatcher, installerLabels)
	if err != nil {
		klog.Fatalf("CDI API server failed to initialize: %v\n", errors.WithStack(err))
	}

	go func() {
		if err := cluster.Start(ctx); err != nil {
			klog.Errorf("cluster failed: %v\n", errors.WithStack(err))
		}
	}()
	go func() {
		if err := certWatcher.Start(ctx.Done()); err != nil {
			klog.Errorf("cert watcher failed: %v\n", errors.WithStack(err))
		}
	}()

	if err := cdiAPIApp.Start(ctx.Done()); err != nil {
		klog.Fatalf("TLS server failed: %v\n", errors.WithStack(err))
	}
}
