# A stepped-up portal session: registering an endpoint is a portal-only operation.
COOKIE=$(npm run --silent sandbox -w @svc-kit/reference-service -- session \
  | sed -n 's/^Cookie: //p')
curl -s http://127.0.0.1:8080/v1/workspace/webhooks \
  -H "Cookie: $COOKIE" -H 'Content-Type: application/json' \
  -d '{"url": "http://localhost:3000/webhooks", "events": []}' \
  | tee ../endpoint.json
