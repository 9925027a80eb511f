npm run --silent sandbox -- trigger message.received
