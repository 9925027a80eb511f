export SVC_WEBHOOK_SECRET='whsec_try_it_locally'
npx tsx server.ts
