# Image of the controller: Node 20, production dependencies only, non-root, read-only root filesystem friendly.
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json ./
COPY bin ./bin
COPY cmd ./cmd
COPY src ./src
COPY protos ./protos
USER 1337:1337
EXPOSE 15010 8080
ENTRYPOINT ["node", "bin/aeraki.js"]
CMD ["serve"]
