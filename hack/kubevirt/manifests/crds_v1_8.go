//go:build kubevirt_v1_8

package main

import extv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

var versionCrdFunctions = []func() (*extv1.CustomResourceDefinition, error){}
