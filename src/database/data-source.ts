// Entry point for the TypeORM CLI (migration:generate / migration:run).
import 'reflect-metadata';

import { DataSource } from 'typeorm';

import { loadConfig } from '../config/app.config';
import { dataSourceOptions } from './data-source-options';

export default new DataSource(dataSourceOptions(loadConfig().databaseUrl));
