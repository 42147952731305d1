#!/usr/bin/python3
"""Lists and watches through Debian's python3-kubernetes against the fake kube-apiserver.

usage: kube_list_watch.py KUBECONFIG NAMESPACE EXPECTED_NAME

Prints one JSON object per line:
  {"configmaps": [...]}                      typed CoreV1Api list (deserialised into V1ConfigMapList)
  {"listed": [...], "resourceVersion": "N"}  EnvoyFilters listed with CustomObjectsApi
  {"event": TYPE, "name": NAME}              each watch event from N, until EXPECTED_NAME is seen
  {"expired": 410}                           a watch from resource_version=1 fails with 410 Expired
Exits 0 on success, 2 when the watch ended without the expected event, 3 when the 410 did not come.
"""
import json
import sys

from kubernetes import client, config, watch


def emit(obj):
    print(json.dumps(obj), flush=True)


def main():
    kubeconfig, namespace, expected = sys.argv[1:4]
    config.load_kube_config(config_file=kubeconfig)
    core = client.CoreV1Api()
    cms = core.list_namespaced_config_map(namespace)
    emit({"configmaps": [c.metadata.name for c in cms.items]})

    co = client.CustomObjectsApi()
    args = ("networking.istio.io", "v1alpha3", namespace, "envoyfilters")
    listed = co.list_namespaced_custom_object(*args)
    rv = listed["metadata"]["resourceVersion"]
    emit({"listed": [i["metadata"]["name"] for i in listed["items"]], "resourceVersion": rv})

    seen = False
    w = watch.Watch()
    for ev in w.stream(co.list_namespaced_custom_object, *args, resource_version=rv, timeout_seconds=20):
        name = ev["object"]["metadata"]["name"]
        emit({"event": ev["type"], "name": name})
        if name == expected:
            seen = True
            w.stop()
    if not seen:
        emit({"error": "watch ended without the expected event"})
        sys.exit(2)

    try:
        for ev in watch.Watch().stream(co.list_namespaced_custom_object, *args, resource_version="1", timeout_seconds=5):
            emit({"unexpected": ev["type"]})
        emit({"error": "no 410"})
        sys.exit(3)
    except client.rest.ApiException as e:
        emit({"expired": e.status})


if __name__ == "__main__":
    main()
