# The secret comes from the environment, so it stays out of your shell history and the process list.
export SVC_WEBHOOK_SECRET='whsec_try_it_locally'
npx --no svc-webhooks sign --body event.json --format curl \
  --url http://localhost:3000/webhooks | sh
