export SVC_WEBHOOK_SECRET='whsec_try_it_locally'
node server.js
