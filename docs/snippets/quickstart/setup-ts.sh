mkdir my-receiver && cd my-receiver
npm init -y
npm pkg set type=module
# The tarball packed in ../svc-kit (box above); once published: npm install @svc-kit/webhooks express
npm install ../svc-kit/packs/svc-kit-webhooks-0.1.0.tgz express
npm install --save-dev tsx typescript @types/express @types/node
