# A stepped-up portal session: registering an endpoint is a portal-only operation. The command prints the
# session's Cookie header and the Origin a browser would send (session writes must show it).
SESSION=$(npm run --silent sandbox -- session)
COOKIE=$(echo "$SESSION" | sed -n 's/^Cookie: //p')
ORIGIN=$(echo "$SESSION" | sed -n 's/^Origin: //p')
curl -s http://127.0.0.1:8080/v1/workspace/webhooks \
  -H "Cookie: $COOKIE" -H "Origin: $ORIGIN" -H 'Content-Type: application/json' \
  -d '{"url": "http://localhost:3000/webhooks", "events": []}' \
  | tee ../endpoint.json
