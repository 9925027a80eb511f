mkdir my-receiver && cd my-receiver
npm init -y
npm pkg set type=module
npm install @svc-kit/webhooks express
npm install --save-dev tsx typescript @types/express @types/node
