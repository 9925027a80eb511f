SVC_API_KEY=svc_…   # the key printed on the service's first start
ENDPOINT=$(sed -n 's/.*"id":"\(whk_[0-9a-f]*\)".*/\1/p' ../endpoint.json)
curl -s "http://127.0.0.1:8080/v1/workspace/webhooks/$ENDPOINT/deliveries?limit=10" \
  -H "Authorization: Bearer $SVC_API_KEY"
