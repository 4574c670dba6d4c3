# syntax=docker/dockerfile:1
# The service's image: `docker compose up` builds and runs it (docker-compose.yml). README "Operating it".

ARG NODE_IMAGE=node:22-bookworm-slim

# 1. Build: every dependency (TypeScript, the Nest CLI), then compile src/ into dist/.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src ./src
RUN npm run build

# 2. Run: production dependencies only, the compiled service, the page templates and assets
#    (views/), the words of the pages in each language (locales/) and the contract the MCP checkout tools read their schemas from (openapi/), owned by
#    root and run as the unprivileged `node` user.
FROM ${NODE_IMAGE} AS run
ENV NODE_ENV=production
# Outside a container the service binds 127.0.0.1 (HOST, docs/configuration.md); here it must answer
# on the container's own interface for the published port to reach it.
ENV HOST=0.0.0.0
# The heap's old generation is capped so the process stays near 200 MB under load instead of letting
# V8 grow to ~400 MB before it collects (docs/operations.md "Memory"); override NODE_OPTIONS to change it.
ENV NODE_OPTIONS=--max-old-space-size=256
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY views ./views
COPY locales ./locales
COPY openapi/openapi.json ./openapi/openapi.json
USER node
EXPOSE 3000
# Ready = Postgres and Redis answer and no migration is pending (GET /health/ready). Node's own
# fetch: the slim image has no curl.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health/ready').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/main.js"]
