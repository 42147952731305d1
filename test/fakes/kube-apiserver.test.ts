// The fake kube-apiserver's own suites: its protocol over raw HTTP, then real clients against it
// (@kubernetes/client-node 1.4, kubectl, python3-kubernetes).
import './kube-apiserver/tests/units.test.ts';
import './kube-apiserver/tests/crud.test.ts';
import './kube-apiserver/tests/apply.test.ts';
import './kube-apiserver/tests/watch.test.ts';
import './kube-apiserver/tests/faults.test.ts';
import './kube-apiserver/tests/crds.test.ts';
import './kube-apiserver/tests/gc.test.ts';
import './kube-apiserver/tests/client-node.test.ts';
import './kube-apiserver/tests/real-clients.test.ts';
