# Image of the controller. The build stage compiles the TypeScript (npm run build -> dist/) and prunes the
# development dependencies; the final stage ships Node 20, dist/, the production dependencies and the Istio
# protos only (no TypeScript, no tsx, no sources). Non-root, read-only root filesystem friendly.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Scripts run after the sources are in place (the root package's prepare is the build).
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY cmd ./cmd
COPY src ./src
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
COPY protos ./protos
USER 1337:1337
# RDS, the admin listener (metrics, probes), the webhook, the ServiceEntry MCP server.
EXPOSE 15010 8080 15017 15011
ENTRYPOINT ["node", "bin/aeraki.js"]
CMD ["serve"]
