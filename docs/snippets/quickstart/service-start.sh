# In a clone of the svc-kit repository, next to my-receiver/
npm install
npm start
