{{/* The labels of every object: the manifests' app: aeraki and those of Helm's best practices (https://helm.sh/docs/chart_best_practices/labels/). Selectors use app: aeraki only. */}}
{{- define "aeraki.labels" -}}
app: aeraki
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/part-of: aeraki
{{- end }}

{{/* istiod's address: istiodAddress, else istiod[-<revision>].<istioNamespace>.svc:15012, as Istio's charts name a revision's istiod (istio/istio 1.30.0 manifests/charts/ztunnel/templates/daemonset.yaml, XDS_ADDRESS). */}}
{{- define "aeraki.istiodAddress" -}}
{{- if .Values.istiodAddress -}}
{{ .Values.istiodAddress }}
{{- else -}}
istiod{{ if .Values.revision }}-{{ .Values.revision }}{{ end }}.{{ .Values.istioNamespace }}.svc:15012
{{- end -}}
{{- end }}

{{/* The image: repository:tag, the tag defaulting to the chart's appVersion. */}}
{{- define "aeraki.image" -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end }}

{{/* The ServiceAccount subject of every binding. */}}
{{- define "aeraki.subject" -}}
- kind: ServiceAccount
  name: aeraki
  namespace: {{ .Release.Namespace }}
{{- end }}
