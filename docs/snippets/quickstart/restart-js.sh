export SVC_WEBHOOK_SECRET=$(node -p "require('../endpoint.json').secret")
node server.js
