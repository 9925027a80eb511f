export SVC_WEBHOOK_SECRET=$(node -p "require('../endpoint.json').secret")
npx tsx server.ts
