# A key for this terminal: mint-key prints a new one (shown once; the first start printed one too).
SVC_API_KEY=$(npm run --silent sandbox -- mint-key | sed -n 's/^API key (shown once): //p')
ENDPOINT=$(sed -n 's/.*"id":"\(whk_[0-9a-f]*\)".*/\1/p' ../endpoint.json)
curl -s "http://127.0.0.1:8080/v1/workspace/webhooks/$ENDPOINT/deliveries?limit=10" \
  -H "Authorization: Bearer $SVC_API_KEY"
