{{/* The labels Helm's chart best practices recommend (https://helm.sh/docs/chart_best_practices/labels/). */}}
{{- define "aeraki-crds.labels" -}}
app: aeraki
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/part-of: aeraki
{{- end }}
