# In a clone of the svc-kit repository, next to my-receiver/
npm install
SVC_ALLOW_LOCALHOST_WEBHOOKS=1 npm start
