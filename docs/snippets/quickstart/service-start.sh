# From the folder that holds my-receiver/ and the svc-kit clone. Skip this when the README's
# `npm start` already runs in that clone (a second start there says its data dir is in use).
cd svc-kit
npm start
