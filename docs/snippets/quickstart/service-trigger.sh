npm run --silent sandbox -w @svc-kit/reference-service -- trigger message.received
